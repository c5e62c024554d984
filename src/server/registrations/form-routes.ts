import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { arForm } from '../../domain/catalogue/form';
import { ar } from '../../domain/catalogue/shared';
import { formStampField, privacyVersionField, trapField } from '../../domain/form-fields';
import { basePath, registrationPath, signedUpParameter } from '../../domain/links';
import { normalizePhone } from '../../domain/phone';
import {
  buildPayload,
  registrationSchema,
  utmFromQuery,
  type FormValues,
} from '../../domain/registration';
import type { FormState } from '../../domain/render-contract';
import { formRouteAt } from '../../domain/routes';
import { refusalOf } from '../refusals';
import { retryAfterSeconds } from '../server-limits';
import { signUp, signUpRateLimit, type SignUpOptions } from './sign-up';

/** A form post's fields, as application/x-www-form-urlencoded gives them. */
type FormBody = Record<string, string> | undefined;

export interface FormRoutesOptions extends SignUpOptions {
  /** The site's origin, as a browser names it in the Origin header of its own pages' posts. */
  siteOrigin(request: FastifyRequest): string;
  /** Renders the page at the request's URL, the form showing `state` (else empty). */
  pageAt(request: FastifyRequest, state?: FormState): Promise<string>;
  /** The database's Database.isUnavailable (refusals.ts). */
  isDatabaseUnavailable: (error: unknown) => boolean;
}

// What the form's fields are called: anything else in a post did not come from the form.
const fields: readonly (keyof FormValues)[] = ['name', 'email', 'phone'];
const formFields = new Set<string>([...fields, trapField, privacyVersionField, formStampField]);

/** What the person typed, to show again; the phone as the form normalises it while typing. */
function typedValues(body: FormBody): FormValues {
  return {
    name: body?.name ?? '',
    email: body?.email ?? '',
    phone: normalizePhone(body?.phone ?? ''),
  };
}

/** The query string of the request's URL: a page's, or a form post's (it posts to its page). */
export function queryOf(request: FastifyRequest): URLSearchParams {
  const start = request.url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : request.url.slice(start + 1));
}

/**
 * POST on the form routes (/register/*): the form as plain HTML, posted by the browser when
 * JavaScript is off or has not loaded yet (docs/product.md §7). The route, never the body, gives
 * the notes and marketing_id, as on the page; the same schema, honeypot, proof of work and
 * repository as the API; the answer is the page itself, or after a sign-up a 303 to the page
 * with the success line, so that a reload posts nothing.
 */
export async function formRoutes(
  app: FastifyInstance,
  { siteOrigin, pageAt, isDatabaseUnavailable, ...signUpOptions }: FormRoutesOptions,
) {
  // Only here: the API takes JSON alone, and a page only this form's encoding.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  async function sendPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    state: Partial<FormState>,
  ) {
    // A post to a page without a form is answered as any other unknown route.
    if (formRouteAt(request.url, basePath) === undefined) {
      return reply.code(404).send({ error: ar.errorBadRequest });
    }
    const page = await pageAt(request, {
      values: { name: '', email: '', phone: '' },
      invalid: [],
      error: '',
      success: '',
      ...state,
    });
    return (
      reply
        .code(status)
        // The page may hold what was typed: neither the browser nor a proxy keeps it.
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(page)
    );
  }

  // Refusals the form route did not answer itself (a body too large or of another type, the
  // rate limit, the database out of reach) are the page too, with what was typed when it was
  // read. Logged as the API's are: codes, never a field's value.
  app.setErrorHandler<FastifyError>(async (error, request, reply) => {
    const { status, message } = refusalOf(error, request, isDatabaseUnavailable);
    return sendPage(request, reply, status, {
      values: typedValues(request.body as FormBody),
      error: message,
    });
  });

  // A post from another site (cross-site request forgery: someone else's page making the
  // visitor's browser sign up, or sign up a stranger) is refused before its body is read.
  // Browsers name the page a form was posted from in Origin, and its relation in
  // Sec-Fetch-Site; either may say it is this site.
  async function fromThisSite(request: FastifyRequest, reply: FastifyReply) {
    const { origin, 'sec-fetch-site': fetchSite } = request.headers;
    if (fetchSite === 'same-origin' || origin === siteOrigin(request)) return;
    request.log.info({ origin, fetchSite }, 'form post refused: not from this site');
    return sendPage(request, reply, 403, { error: ar.errorBadRequest });
  }

  app.post<{ Body: FormBody }>(
    '/register/*',
    {
      onRequest: fromThisSite,
      // After the body is read, so that a refused person still finds what they typed.
      config: {
        rateLimit: { ...signUpRateLimit(signUpOptions.rateLimitPerMinute), hook: 'preHandler' },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const values = typedValues(body);
      // Shed like the API, once the body is read (load-shedding.ts lets page requests through).
      if (app.isUnderPressure()) {
        reply.header('retry-after', retryAfterSeconds);
        return sendPage(request, reply, 503, { values, error: ar.errorTooManyRequests });
      }
      const form = formRouteAt(request.url, basePath);
      if (form === undefined) return reply.code(404).send({ error: ar.errorBadRequest });

      // notes and marketing_id come from the route; a post that names them, or any field the
      // form has not, was written by hand.
      if (Object.keys(body ?? {}).some((field) => !formFields.has(field))) {
        request.log.info('registration refused: a field the form does not have');
        return sendPage(request, reply, 400, { values, error: arForm.errorInvalid });
      }
      const trap = body?.[trapField] ?? '';
      const stamp = body?.[formStampField] ?? '';
      // The campaign parameters are the page's, as on the JavaScript path: the form has no
      // field for them, so they are read from the address it was posted to.
      const utm = utmFromQuery(queryOf(request));
      const parsed = registrationSchema.safeParse({
        ...buildPayload(values, form, utm, body?.[privacyVersionField]),
        ...(trap !== '' && { [trapField]: trap }),
        ...(stamp !== '' && { [formStampField]: stamp }),
      });
      if (!parsed.success) {
        const issues = parsed.error.issues.map(({ path, code }) => ({
          path: path.map(String).join('/'),
          code,
        }));
        request.log.info({ fields: issues }, 'registration refused: invalid fields');
        const paths = parsed.error.issues.map((issue) => issue.path[0]);
        return sendPage(request, reply, 400, {
          values,
          invalid: fields.filter((field) => paths.includes(field)),
          error: arForm.errorInvalid,
        });
      }

      const result = await signUp(parsed.data, 'form', signUpOptions, request);
      if (result.kind === 'unsolved') {
        // Only the page's JavaScript solves the challenge: this post carries none.
        return sendPage(request, reply, 400, { values, error: arForm.errorChallengeNeedsScript });
      }
      // The campaign stays in the address, so that another sign-up from the page keeps it too.
      const campaign = new URLSearchParams(utm).toString();
      return reply.redirect(
        `${registrationPath(form)}?${campaign === '' ? '' : `${campaign}&`}${signedUpParameter}`,
        303,
      );
    },
  );
}
