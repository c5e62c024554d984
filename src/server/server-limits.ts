// The server's time limits, in one place: main.ts applies them and the tests that check them
// import them instead of retyping the numbers.

/**
 * A client that has not sent its whole request in this time is cut off. A sign-up is under
 * 1 KB: even a poor phone connection sends it in a second or two, while a client trickling a
 * byte every two seconds would otherwise hold a socket for a minute.
 */
export const requestTimeoutMs = 10_000;

/** Open connections past this are refused at once, before they cost memory. */
export const maxConnections = 4_096;

/** At SIGTERM, connections still open this long after (idle or slow ones) are closed. */
export const shutdownGraceMs = 3_000;

/** An idle kept-alive connection is closed after this long. */
export const keepAliveTimeoutMs = 5_000;

/** SIGTERM finishes the requests in flight; past this the process exits anyway (code 1). */
export const shutdownLimitMs = 10_000;

/** What a shed request is told to wait before trying again (Retry-After, seconds). */
export const retryAfterSeconds = 5;
