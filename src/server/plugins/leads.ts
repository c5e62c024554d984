import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { leadStatuses } from '../../domain/lead-status';
import { requireApiKey } from '../api-keys';
import type { LeadStatuses } from '../leads/lead-statuses';

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
  const rateLimit = requireApiKey(app, {
    name: 'leads',
    keys,
    paths: ['/leads/:id/status'],
    perMinute: changesPerMinute,
    refusedPerMinute,
  });

  app.post<{ Params: { id: string } }>(
    '/leads/:id/status',
    { config: { rateLimit } },
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
