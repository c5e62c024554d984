import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { leadStatuses } from '../../domain/lead-status';
import type { LeadStatuses } from '../leads/lead-statuses';

declare module 'fastify' {
  interface FastifyRequest {
    /** The hash of the leads API key the request carried, once it matched one. */
    leadsKey?: string;
  }
}

export interface LeadsOptions {
  /** LEADS_API_KEY: one key, or two while the CRM moves to a new one. */
  keys: string[];
  leadStatuses: LeadStatuses;
  now: () => Date;
}

/**
 * A key's changes a minute: a CRM's backfill of thousands of leads passes in a few minutes (it
 * is told when to go on by Retry-After), and a CRM gone wrong cannot write without end.
 */
export const changesPerMinute = 6_000;
/** Requests a minute from one address whose key is missing or wrong. */
export const refusedPerMinute = 30;

const body = z.object({ status: z.enum(leadStatuses) }).strict();
const invalid = `expected a JSON body {"status": one of ${leadStatuses.join(', ')}} and nothing else`;

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * POST /api/leads/:id/status: the provider's CRM tells what became of a lead (docs/webhooks.md,
 * docs/marketer-kit.md). Registered only when LEADS_API_KEY is set, so that without it the path
 * is a 404 like any other; a machine's route: no CORS, its answers in English for the CRM's
 * developers, and nothing personal logged (the body holds a status only).
 */
export const leadsPlugin: FastifyPluginAsync<LeadsOptions> = async (
  app,
  { keys, leadStatuses: statuses, now },
) => {
  const digests = keys.map(digest);

  // Every key compared, each in constant time, so that neither the time nor which key matched
  // tells a guesser anything.
  function keyOf(request: FastifyRequest): string | undefined {
    const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (bearer === undefined) return undefined;
    const given = digest(bearer);
    const matches = digests.map((key) => timingSafeEqual(key, given));
    return matches.includes(true) ? given.toString('hex').slice(0, 32) : undefined;
  }

  // The verdict first (onRequest), so that the rate limit, a hook of the route that runs after
  // it, counts a key's changes per key and refused requests per address.
  app.addHook('onRequest', async (request) => {
    request.leadsKey = keyOf(request);
  });
  app.addHook('preParsing', async (request, reply) => {
    if (request.leadsKey !== undefined) return;
    request.log.info('leads API: a request without a valid key refused');
    return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'unauthorized' });
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  // The API's CORS answers preflights for every path under /api; this one is for servers only.
  app.options('/leads/:id/status', (_request, reply) =>
    reply.code(404).send({ error: 'not found' }),
  );

  app.post<{ Params: { id: string } }>(
    '/leads/:id/status',
    {
      config: {
        rateLimit: {
          hook: 'onRequest',
          timeWindow: 60_000,
          keyGenerator: (request: FastifyRequest) =>
            request.leadsKey === undefined
              ? `leads-refused:${request.ip}`
              : `leads:${request.leadsKey}`,
          max: (request: FastifyRequest) =>
            request.leadsKey === undefined ? refusedPerMinute : changesPerMinute,
        },
      },
    },
    async (request, reply) => {
      const parsed = body.safeParse(request.body);
      if (!parsed.success) return reply.code(400).send({ error: invalid });
      const result = await statuses.change(
        { id: request.params.id },
        parsed.data.status,
        'api',
        now(),
      );
      if (result.kind === 'not_found')
        return reply.code(404).send({ error: 'no lead with this id' });
      return { id: result.id, status: result.status, changed_at: result.changedAt };
    },
  );
};
