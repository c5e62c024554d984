/**
 * How long a test waits for an event (expect.poll, Testing Library's findBy… and waitFor) before
 * it fails: on a busy machine the event comes late, not wrongly, so the wait is 5 s rather than
 * the libraries' 1 s, and a test's own time-out (vitest.config.ts) four such waits.
 */
export const eventWaitMs = 5_000;
