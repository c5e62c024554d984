// What the form's markup and a form post name. The page renders them before anything is typed;
// the schema that checks them (registration.ts, with zod) is loaded only to send, so these live
// apart from it and the form's first JavaScript carries no zod.

export const nameMaxLength = 100;

/**
 * The page's <meta name> that says the server asks for a solved proof-of-work challenge
 * (ALTCHA): only then does the form fetch one.
 */
export const proofOfWorkMeta = 'proof-of-work';

/** The name of the form's honeypot field (a name bots like to fill). */
export const trapField = 'website';

/**
 * The name of the form's hidden field that holds the version of the privacy notice the page
 * showed (docs/personal-data.md#consent): sent, it is what the submission records.
 */
export const privacyVersionField = 'privacy_version';

/**
 * The name of the form's hidden field that holds the server's signed stamp of the time it
 * served the form (docs/flags.md#fast): sent back with the sign-up, with or without JavaScript.
 */
export const formStampField = 'form_stamp';
