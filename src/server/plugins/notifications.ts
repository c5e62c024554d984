import { normalizeIP } from '@fastify/rate-limit';
import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { arNotifications } from '../../domain/catalogue/notifications';
import { ar } from '../../domain/catalogue/shared';
import { basePath } from '../../domain/links';
import {
  confirmPath,
  isMailKind,
  notificationsPath,
  type Audience,
  type MailLinkOutcome,
  unsubscribePath,
} from '../../domain/notifications';
import { notificationsSchema } from '../../domain/notifications-input';
import { DatabaseUnavailableError } from '../db/database';
import type { MarketerAuthConfig } from '../env';
import type { TokenVerifier } from '../marketer-stats/marketer-auth';
import type { NotificationsStore, NotificationsUser } from '../mail/notifications';
import type { People } from '../people/people';
import { refusalOf } from '../refusals';
import { requirePlatformUser } from './platform-sign-in';

export interface NotificationsOptions {
  config: MarketerAuthConfig;
  /** The platform's tokens, verified as for every signed-in route (app.ts makes it once). */
  verify: TokenVerifier;
  now: () => Date;
  notifications: NotificationsStore;
  /** The directory: a marketer's address, when it holds one. */
  people: People;
  isDatabaseUnavailable: (error: unknown) => boolean;
}

// A page's choices are read once and changed now and then: a script asks far more.
const requestsPerMinute = 30;

/** Who the token's role makes the person; undefined for a role that is offered nothing (403). */
function audienceOf(role: string, programRoles: readonly string[]): Audience | undefined {
  if (role === 'team_leader_marketing') return 'team_leader';
  if (role === 'marketing') return 'marketer';
  return programRoles.includes(role) ? 'program' : undefined;
}

/**
 * With e-mail off (no SMTP_URL) and the pages' numbers on: `GET /api/notifications` answers
 * 204, whoever asks. The link page and the programme's page offer no e-mail then, and the
 * browser logs no failed request on every page opened, as a 404 would make it.
 */
export const notificationsOffPlugin: FastifyPluginAsync = async (app) => {
  app.get(notificationsPath.slice('/api'.length), async (_request, reply) =>
    reply.code(204).header('cache-control', 'no-store').send(),
  );
};

/**
 * `GET` and `PUT /api/notifications` (docs/notifications.md): the e-mails a person asks for,
 * with the platform's token verified as the numbers' routes verify it (plugins/stats.ts): a
 * marketer's and a team leader's for their link page, a programme role's for the programme's
 * page. Registered under /api only when SMTP_URL and MARKETER_AUTH_* are set: without either,
 * the path is a 404 like any other, and the pages offer no e-mail. A change is taken as JSON
 * alone, which no other site's page can send with the platform's cookie (no CORS here).
 */
export const notificationsPlugin: FastifyPluginAsync<NotificationsOptions> = async (
  app,
  { config, verify, now, notifications, people, isDatabaseUnavailable },
) => {
  const texts = {
    subject: 'notifications',
    invalid: arNotifications.errorInvalid,
    failed: arNotifications.errorSave,
  };

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    const { status, message } = refusalOf(error, request, isDatabaseUnavailable, texts);
    return reply.code(status).send({ error: message });
  });

  requirePlatformUser(app, {
    config,
    verify,
    name: 'notifications',
    signIn: arNotifications.errorSignIn,
    unavailable: arNotifications.errorSave,
  });
  app.addHook('onRequest', async (request, reply) => {
    if (audienceOf(request.user!.role, config.programRoles) === undefined) {
      return reply.code(403).send({ error: ar.errorNotAuthorized });
    }
  });

  /** The person, with the address known without typing: the directory's, else the token's. */
  async function userOf(request: FastifyRequest): Promise<NotificationsUser> {
    const { sub, role, email } = request.user!;
    const audience = audienceOf(role, config.programRoles)!;
    // A programme role is no marketer: the directory holds marketers alone.
    const listed = audience === 'program' ? undefined : (await people.get(sub))?.email;
    return { subject: sub, audience, email: listed ?? email };
  }

  const limited = {
    config: {
      rateLimit: {
        hook: 'preHandler' as const,
        timeWindow: 60_000,
        max: requestsPerMinute,
        keyGenerator: (request: FastifyRequest) => `notifications:${request.user!.sub}`,
      },
    },
  };
  const path = notificationsPath.slice('/api'.length);

  app.get(path, limited, async (request) => notifications.get(await userOf(request), now()));

  app.put(path, limited, async (request, reply) => {
    const parsed = notificationsSchema.safeParse(request.body);
    if (!parsed.success) {
      request.log.info(
        { fields: parsed.error.issues.map(({ path, code }) => ({ path: path.join('/'), code })) },
        'notifications refused: invalid fields',
      );
      return reply.code(400).send({ error: arNotifications.errorInvalid });
    }
    const outcome = await notifications.put(await userOf(request), parsed.data, now());
    switch (outcome.kind) {
      case 'done':
        return outcome.notifications;
      case 'not_offered':
        request.log.info('notifications refused: a choice not offered to the role');
        return reply.code(400).send({ error: arNotifications.errorChoice });
      case 'no_address':
        return reply.code(400).send({ error: arNotifications.errorNoEmail });
      case 'limited':
        request.log.info('notifications refused: the confirmation e-mails past their limits');
        return reply.code(429).send({ error: arNotifications.errorLimit });
    }
  });
};

export interface MailLinkRoutesOptions {
  notifications: NotificationsStore;
  now: () => Date;
  /** Renders the page at the request's URL, showing what its button's post did. */
  pageAt(request: FastifyRequest, form: undefined, mailLink: MailLinkOutcome): Promise<string>;
  /** Posts a minute from one address (RATE_LIMIT_PER_MINUTE, as the form's). */
  rateLimitPerMinute: number;
}

// The statuses of a post's outcome: a link unknown, used, expired or withdrawn is gone (410),
// whichever it is; the database out of reach is 503.
const statusOf: Record<MailLinkOutcome, number> = { done: 200, invalid: 410, failed: 503 };

// What a mail provider's one-click post holds (List-Unsubscribe=One-Click), and a page's
// button's: a few bytes, read and thrown away.
const linkBodyLimit = 1024;

/**
 * POST on the e-mails' links (docs/notifications.md): the confirmation page's button, and the
 * unsubscribe page's, which is also RFC 8058's one-click POST that mail providers send. No
 * sign-in and no origin check: the unguessable token in the path is the whole authority, and
 * a provider's post comes from no page. urlencoded, multipart or empty; the body is not read.
 * GET of the same pages is the pages' (plugins/pages.ts), which changes nothing: a scanner that
 * opens the links confirms and stops nothing. Registered by the pages plugin, in a scope of
 * its own, before its form's POST on /register/* (more specific routes win).
 */
export async function mailLinkRoutes(
  app: FastifyInstance,
  { notifications, now, pageAt, rateLimitPerMinute }: MailLinkRoutesOptions,
) {
  app.removeAllContentTypeParsers();
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    app.addContentTypeParser(
      type,
      { parseAs: 'buffer', bodyLimit: linkBodyLimit },
      (_request, _body, done) => done(null, undefined),
    );
  }

  async function sendPage(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: MailLinkOutcome,
    status = statusOf[outcome],
  ) {
    return reply
      .code(status)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(await pageAt(request, undefined, outcome));
  }

  // A body too large or of another type, or the rate limit: the page, as failed.
  app.setErrorHandler<FastifyError>(async (error, request, reply) => {
    const status =
      error.statusCode !== undefined && error.statusCode < 500 ? error.statusCode : 500;
    request.log.info({ code: error.code, status }, 'e-mail link post refused');
    return sendPage(request, reply, 'failed', status);
  });

  /** Acts, then answers the page with what it did. */
  async function act(
    request: FastifyRequest,
    reply: FastifyReply,
    action: () => Promise<'done' | 'invalid'>,
  ) {
    let outcome: MailLinkOutcome;
    try {
      outcome = await action();
    } catch (error) {
      if (!(error instanceof DatabaseUnavailableError)) throw error;
      request.log.error({ err: error }, 'database unavailable');
      outcome = 'failed';
    }
    return sendPage(request, reply, outcome);
  }

  const limited = {
    config: {
      rateLimit: {
        hook: 'preHandler' as const,
        timeWindow: 60_000,
        max: rateLimitPerMinute,
        keyGenerator: (request: FastifyRequest) => `mail-link:${normalizeIP(request.ip, 48)}`,
      },
    },
  };

  app.post<{ Params: { token: string } }>(`${basePath}${confirmPath}`, limited, (request, reply) =>
    act(request, reply, () => notifications.confirm(request.params.token, now())),
  );

  app.post<{ Params: { kind: string; token: string } }>(
    `${basePath}${unsubscribePath}`,
    limited,
    async (request, reply) => {
      const { kind, token } = request.params;
      // No such kind of e-mail: the page is the not-found one, as its GET.
      if (!isMailKind(kind)) return sendPage(request, reply, 'invalid', 404);
      return act(request, reply, () => notifications.unsubscribe(kind, token, now()));
    },
  );
}
