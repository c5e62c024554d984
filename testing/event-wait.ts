/**
 * How long a test waits for an event (expect.poll, Testing Library's findBy… and waitFor) before
 * it fails: on a busy machine the event comes late, not wrongly, so the wait is as long as a
 * test's own time-out rather than the libraries' 1 s.
 */
export const eventWaitMs = 5_000;
