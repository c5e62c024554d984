import type { FastifyError, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { arForm } from '../domain/catalogue/form';
import { ar } from '../domain/catalogue/shared';
import { DatabaseUnavailableError } from './db/database';
import type { SignUpOutcome } from './metrics';

/** What a refusal answers, whichever way the sign-up came (the JSON API or the HTML form). */
export interface Refusal {
  status: number;
  /** The Arabic text the person is shown. */
  message: string;
}

/** What a scope's refusals say: the request that was refused, and what became of it. */
export interface RefusalTexts {
  /** What was refused, as the log names it: "registration refused: invalid fields". */
  subject: string;
  /** A body, query or path that fails its schema (400). */
  invalid: string;
  /** An unexpected error (500) or a database out of reach (503). */
  failed: string;
}

/** The sign-up's (docs/product.md §8), for every route but those that give their own. */
export const signUpRefusals: RefusalTexts = {
  subject: 'registration',
  invalid: arForm.errorInvalid,
  failed: arForm.errorGeneric,
};

// A refusal's status says what became of a sign-up, except what the sign-up marks itself
// (registrations/sign-up.ts: a repeat, the honeypot, an unsolved challenge).
const outcomes: Record<number, SignUpOutcome> = {
  400: 'validation',
  403: 'cross_site',
  413: 'too_large',
  415: 'wrong_type',
  429: 'rate_limited',
  503: 'shed',
};

/** The outcome of a sign-up request by its answer's status (the metrics). */
export function outcomeOfStatus(status: number): SignUpOutcome {
  return status < 400 ? 'created' : (outcomes[status] ?? 'error');
}

/**
 * The one mapping of an error to its answer, for every route, logged as it is classified: codes
 * and failing paths below 500, never a message (a JSON syntax error quotes the body, which holds
 * a name and a phone number); the whole error at 500 and for a database out of reach.
 * `isDatabaseUnavailable` is the database's own test (Database.isUnavailable): a route that reads
 * the database itself is answered as a repository's caller is, 503 and the `failed` text.
 */
export function refusalOf(
  error: FastifyError,
  request: FastifyRequest,
  isDatabaseUnavailable: (error: unknown) => boolean,
  texts: RefusalTexts = signUpRefusals,
): Refusal {
  if (hasZodFastifySchemaValidationErrors(error)) {
    const fields = error.validation.map(({ instancePath, keyword }) => ({ instancePath, keyword }));
    request.log.info({ fields }, `${texts.subject} refused: invalid fields`);
    return { status: 400, message: texts.invalid };
  }
  if (error instanceof DatabaseUnavailableError || isDatabaseUnavailable(error)) {
    request.log.error({ err: error }, 'database unavailable');
    return { status: 503, message: texts.failed };
  }
  const status = error.statusCode ?? 500;
  if (status === 429) return { status, message: ar.errorTooManyRequests };
  if (status >= 400 && status < 500) {
    request.log.info({ code: error.code, status }, 'request refused');
    return { status, message: ar.errorBadRequest };
  }
  request.log.error({ err: error }, 'unexpected error');
  return { status: 500, message: texts.failed };
}
