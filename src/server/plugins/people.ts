import type { FastifyPluginAsync } from 'fastify';
import type { core } from 'zod/mini';
import { peoplePerPut, peopleSchema, personSchema } from '../../domain/people';
import { marketingIdPattern } from '../../domain/links';
import { requireApiKey } from '../api-keys';
import type { People } from '../people/people';

export interface PeopleOptions {
  /** PEOPLE_API_KEY: one key, or two while the platform moves to a new one. */
  keys: string[];
  people: People;
  now: () => Date;
}

/**
 * A key's requests a minute: the platform's sync of a few thousand people is a few requests of
 * a thousand, or a request a person changed; a platform gone wrong cannot write without end.
 */
export const requestsPerMinute = 600;
/** Requests a minute from one address whose key is missing or wrong. */
export const refusedPerMinute = 30;
/** The body limit of `PUT /api/people`: a thousand people with long names and e-mails. */
export const peopleBodyLimit = 512 * 1024;

const fields =
  '"name": text, "team_leader_id"?: a marketing id, "email"?: an e-mail, "active"?: true or false';
const invalidPerson = `expected a JSON body {${fields}} and nothing else`;
const invalidPeople = `expected a JSON array of up to ${peoplePerPut} people, each {"marketing_id": a marketing id, ${fields}} and nothing else`;

/** Where the body is wrong, as JSON pointers (`/3/email`); an unknown field by its own name. */
function fieldsOf(error: core.$ZodError): string[] {
  const paths = error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [...issue.path, key])
      : [issue.path],
  );
  return [...new Set(paths.map((path) => `/${path.join('/')}`))];
}

/**
 * The programme's people, from the provider's platform (docs/program.md): `PUT
 * /api/people/:marketing_id` one person, `PUT /api/people` up to a thousand, `GET
 * /api/people/:marketing_id` what is kept. Registered only when PEOPLE_API_KEY is set, so that
 * without it the paths are a 404 like any other; refused as the CRM's status API is
 * (plugins/leads.ts): a machine's routes, no CORS, their own answers in English for the
 * platform's developers, and nothing personal logged. Every answer reads the database, so every
 * instance shows a put at once.
 */
export const peoplePlugin: FastifyPluginAsync<PeopleOptions> = async (
  app,
  { keys, people, now },
) => {
  const rateLimit = requireApiKey(app, {
    name: 'people',
    keys,
    paths: ['/people', '/people/:marketing_id'],
    perMinute: requestsPerMinute,
    refusedPerMinute,
  });

  app.put<{ Params: { marketing_id: string } }>(
    '/people/:marketing_id',
    { config: { rateLimit } },
    async (request, reply) => {
      const { marketing_id: marketingId } = request.params;
      if (!marketingIdPattern.test(marketingId)) {
        return reply
          .code(400)
          .send({ error: 'the path names no marketing id', fields: ['/marketing_id'] });
      }
      const parsed = personSchema.safeParse(request.body);
      if (!parsed.success) {
        return reply.code(400).send({ error: invalidPerson, fields: fieldsOf(parsed.error) });
      }
      await people.put([{ ...parsed.data, marketing_id: marketingId }], now());
      return people.get(marketingId);
    },
  );

  app.put(
    '/people',
    { bodyLimit: peopleBodyLimit, config: { rateLimit } },
    async (request, reply) => {
      const parsed = peopleSchema.safeParse(request.body);
      if (!parsed.success) {
        return reply.code(400).send({ error: invalidPeople, fields: fieldsOf(parsed.error) });
      }
      await people.put(parsed.data, now());
      return { stored: new Set(parsed.data.map((each) => each.marketing_id)).size };
    },
  );

  app.get<{ Params: { marketing_id: string } }>(
    '/people/:marketing_id',
    { config: { rateLimit } },
    async (request, reply) => {
      const { marketing_id: marketingId } = request.params;
      const kept = marketingIdPattern.test(marketingId) ? await people.get(marketingId) : undefined;
      if (kept === undefined) {
        return reply.code(404).send({ error: 'no person with this marketing id' });
      }
      return kept;
    },
  );
};
