import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { arStats } from '../../domain/catalogue/marketer-stats';
import { arProgram, arReview } from '../../domain/catalogue/program';
import { ar } from '../../domain/catalogue/shared';
import { marketerStatsPath, statsPeriods, type StatsPeriod } from '../../domain/marketer-stats';
import {
  leadFlags,
  reviewListPath,
  reviewNoteLength,
  reviewPageLength,
} from '../../domain/lead-review';
import { marketingIdPattern } from '../../domain/links';
import { periodDays, programStatsPath, rangeRefusal } from '../../domain/program-stats';
import { storable } from '../../domain/registration';
import type { Database } from '../db/schema';
import type { MarketerAuthConfig } from '../env';
import { countAll } from '../counts';
import { refusalOf, type RefusalTexts } from '../refusals';
import type { LeadReviews } from '../leads/lead-reviews';
import type { People } from '../people/people';
import { marketerRoles, type TokenVerifier } from '../marketer-stats/marketer-auth';
import { refusedPast, requirePlatformUser } from './platform-sign-in';
import { buildMarketerStats, buildTeam, firstDay } from '../marketer-stats/marketer-stats';
import { createCountPeriods, type CountKeeper } from '../count-rollups';
import { buildProgramStats } from '../marketer-stats/program-stats';
import { buildProgramMarketer } from '../marketer-stats/program-marketer';

export interface StatsOptions {
  config: MarketerAuthConfig;
  /** The platform's tokens, verified as for every signed-in route (app.ts makes it once). */
  verify: TokenVerifier;
  now: () => Date;
  database: Database;
  leadReviews: LeadReviews;
  /** The directory: a team leader's members when their token lists none, and their names. */
  people: People;
  /** Woken when an answer found finished days not kept as they are now. */
  keeper: CountKeeper;
}

// A page opened now and then asks a few times a minute; a script asks far more.
const requestsPerMinute = 30;

// Decisions one after another down the review list, a few seconds each at most; a burst
// decided at once is one of them.
const decisionsPerMinute = 60;
// The leads decided last, shown with their decisions under the review list's page.
const decidedShown = 50;

const decisionFields = {
  credited: z.boolean(),
  // As a sign-up's name is held: PostgreSQL refuses NUL in text, and the characters that
  // reorder or forge a line would lie to whoever reads the note.
  note: z.string().trim().max(reviewNoteLength).refine(storable).default(''),
};
const decision = z.object(decisionFields).strict();
const decisions = z
  .object({ ids: z.array(z.string()).min(1).max(reviewPageLength), ...decisionFields })
  .strict();

// One of each, at most: a parameter given twice is an array, refused.
const reviewQuery = z
  .object({
    after: z.string().optional(),
    marketing_id: z.string().regex(marketingIdPattern).optional(),
    flag: z.enum(leadFlags).optional(),
  })
  .strict();

// What each route's refusals say (the app's are the sign-up's): what was refused, in Arabic, and
// its name in the log.
const decisionPath = '/api/program/leads/:id/review';
const programMarketerRoute = '/api/program/marketers/:marketing_id/stats';
const refusals: Record<string, RefusalTexts> = {
  [marketerStatsPath]: {
    subject: "marketer's numbers",
    invalid: arStats.errorPeriod,
    failed: arStats.errorStats,
  },
  [programStatsPath]: {
    subject: "programme's numbers",
    invalid: arStats.errorPeriod,
    failed: arProgram.errorStats,
  },
  [programMarketerRoute]: {
    subject: "marketer's page",
    invalid: arStats.errorPeriod,
    failed: arProgram.errorStats,
  },
  [reviewListPath]: {
    subject: 'review list',
    invalid: ar.errorBadRequest,
    failed: arReview.errorList,
  },
  [decisionPath]: {
    subject: 'decision',
    invalid: arReview.errorDecision,
    failed: arReview.errorSave,
  },
};

const periodNames = statsPeriods.map(String) as [string, ...string[]];
const query = z.object({
  days: z
    .enum(periodNames)
    .default('30')
    .transform((days) => Number(days) as StatsPeriod),
});
// One period, of one of the two kinds: the last `days`, or a range `from` and `to` (each one
// string at most: a parameter given twice is an array, refused). A range's dates are judged by
// the handler, against the app's clock: rangeRefusal.
const programQuery = z.object({
  days: z
    .enum(periodNames)
    .transform((days) => Number(days) as StatsPeriod)
    .optional(),
  from: z.string().optional(),
  to: z.string().optional(),
});

/**
 * The numbers behind the platform's token (docs/marketer-kit.md, docs/program.md):
 * GET /api/marketer/stats, a marketer's own numbers for the token's subject and a team leader's
 * team's, for the members the token lists (no parameter can name another marketer); and
 * GET /api/program/stats, the whole programme's, for the roles of PROGRAM_ROLES, who also read
 * the queue of flagged leads awaiting review (GET /api/program/review) and decide on a lead's
 * credit (POST /api/program/leads/{id}/review), or on many at once (POST /api/program/review,
 * docs/flags.md). Registered
 * under /api only when MARKETER_AUTH_* is set, so that without it the paths are a 404 like any
 * other.
 */
export const statsPlugin: FastifyPluginAsyncZod<StatsOptions> = async (
  app,
  { config, verify, now, database, leadReviews, people, keeper },
) => {
  const periods = createCountPeriods(database, keeper.wake);

  app.setErrorHandler<FastifyError>((error, request, reply) => {
    // A decision on many leads is posted to the review list's path: it is refused as a decision.
    const url = request.routeOptions.url ?? '';
    const texts = refusals[request.method === 'POST' ? decisionPath : url];
    const { status, message } = refusalOf(error, request, database.isUnavailable, texts);
    return reply.code(status).send({ error: message });
  });

  requirePlatformUser(app, {
    config,
    verify,
    name: 'marketer',
    signIn: arStats.errorSignIn,
    unavailable: arStats.errorStats,
  });

  /** The route's options: served to these roles alone (403 for the others), limited per user. */
  const forRoles = (roles: readonly string[], name: string, max = requestsPerMinute) => ({
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      if (!roles.includes(request.user!.role)) {
        return reply.code(403).send({ error: ar.errorNotAuthorized });
      }
    },
    config: {
      rateLimit: {
        hook: 'preHandler' as const,
        timeWindow: 60_000,
        max,
        keyGenerator: (request: FastifyRequest) => `${name}:${request.user!.sub}`,
      },
    },
  });

  app.get(
    marketerStatsPath.slice('/api'.length),
    { ...forRoles(marketerRoles, 'marketer'), schema: { querystring: query } },
    async (request) => {
      const { sub: marketingId, role } = request.user!;
      const { days } = request.query;
      const today = now();
      const since = firstDay(days, today);
      const counted = await countAll(database.reads, ['day', 'package_key'], {
        since,
        marketingIds: [marketingId],
      });
      const stats = buildMarketerStats(marketingId, days, today, counted);
      if (role !== 'team_leader_marketing') return stats;
      // Which team counts (docs/marketer-kit.md): the token's signed list when it carries one,
      // else the directory's (the people whose team leader this leader is).
      const team = request.user!.team ?? (await people.members(marketingId));
      // The members by marketer only: fifty of them are fifty rows, read in one statement each.
      const members = await countAll(database.reads, ['marketing_id'], {
        since,
        marketingIds: team,
      });
      return { ...stats, ...buildTeam(team, members, await people.directory(team)) };
    },
  );

  /** The period of a programme's query, or the 400 that refuses it, said in the log. */
  function periodOf(request: FastifyRequest, { days, from, to }: z.output<typeof programQuery>) {
    const date = now().toISOString().slice(0, 10);
    if (from === undefined && to === undefined) {
      return { period: periodDays({ days: days ?? 30 }, date) };
    }
    const refusal = days === undefined ? rangeRefusal(from ?? '', to ?? '', date) : 'both';
    if (refusal === undefined) return { period: { from: from!, to: to! } };
    request.log.info({ refusal }, "programme's numbers refused: the range");
    return { error: refusal === 'both' ? arStats.errorPeriod : arProgram.errorRange[refusal] };
  }

  app.get(
    programStatsPath.slice('/api'.length),
    { ...forRoles(config.programRoles, 'program'), schema: { querystring: programQuery } },
    async (request, reply) => {
      const asked = periodOf(request, request.query);
      if (asked.period === undefined) return reply.code(400).send({ error: asked.error });
      return buildProgramStats(periods, asked.period, now());
    },
  );

  // One marketer's page: the same period and limit as the programme's (one page's numbers).
  app.get(
    programMarketerRoute.slice('/api'.length),
    {
      ...forRoles(config.programRoles, 'program'),
      schema: { params: z.object({ marketing_id: z.string() }), querystring: programQuery },
    },
    async (request, reply) => {
      const { marketing_id: marketingId } = request.params;
      // No link can carry another id: there is nothing to count of it.
      if (!marketingIdPattern.test(marketingId)) {
        return reply.code(400).send({ error: ar.errorBadRequest });
      }
      const asked = periodOf(request, request.query);
      if (asked.period === undefined) return reply.code(400).send({ error: asked.error });
      return buildProgramMarketer(periods, marketingId, asked.period, now());
    },
  );

  app.get(
    reviewListPath.slice('/api'.length),
    { ...forRoles(config.programRoles, 'review'), schema: { querystring: reviewQuery } },
    async (request, reply) => {
      const { after, marketing_id: marketingId, flag } = request.query;
      const list = await leadReviews.list({
        awaiting: reviewPageLength,
        decided: decidedShown,
        after,
        marketingId,
        flag,
      });
      // The lead to page after is gone (deleted meanwhile): the queue starts again at its head.
      if (list === 'not_found') return reply.code(404).send({ error: ar.errorBadRequest });
      return list;
    },
  );

  // One limit for the decisions of both routes: a burst decided at once is one request.
  const decisionLimit = app.createRateLimit({
    timeWindow: 60_000,
    max: decisionsPerMinute,
    keyGenerator: (request: FastifyRequest) => `decision:${request.user!.sub}`,
  });
  const forDeciders = {
    onRequest: forRoles(config.programRoles, 'decision').onRequest,
    preHandler: refusedPast(decisionLimit),
  };

  // A decision changes what is stored, yet the token may come as a cookie: it is taken as JSON
  // alone (the scope parses nothing else), which no other site's page can send here without
  // this origin's leave (CORS, which these routes never grant).
  app.post(
    decisionPath.slice('/api'.length),
    { ...forDeciders, schema: { params: z.object({ id: z.string() }), body: decision } },
    async (request, reply) => {
      const decided = await leadReviews.decide(
        request.params.id,
        request.body,
        request.user!.sub,
        now(),
      );
      if (decided.kind === 'not_found') {
        return reply.code(404).send({ error: arReview.errorNotFound });
      }
      return decided.review;
    },
  );

  // The same decision on many leads (a burst), each its own record: all of them, or none (404)
  // when an id names no submission.
  app.post(
    reviewListPath.slice('/api'.length),
    { ...forDeciders, schema: { body: decisions } },
    async (request, reply) => {
      const { ids, ...decided } = request.body;
      const recorded = await leadReviews.decideAll(ids, decided, request.user!.sub, now());
      if (recorded.kind === 'not_found') {
        return reply.code(404).send({ error: arReview.errorNotFound });
      }
      return { reviews: recorded.reviews };
    },
  );
};
