// zod/mini, as registration.ts: the same rules for a name, an e-mail and a marketer's id.
import * as z from 'zod/mini';
import { emailSchema, marketingIdSchema, nameSchema } from './registration';

/** The API of the programme's people, for the provider's platform (docs/program.md). */
export const peoplePath = '/api/people';

/** The most people one `PUT /api/people` takes. */
export const peoplePerPut = 1_000;

// '' and null are none, as absent is: a PUT sends the whole person, so what it leaves out is
// unset rather than kept.
const orNone = <Schema extends z.ZodMiniType<string, string | number>>(schema: Schema) =>
  z.pipe(
    z.optional(z.nullable(z.union([z.literal(''), schema]))),
    z.transform((value) => value || null),
  );

const personFields = {
  name: nameSchema,
  /** Their team leader's marketing id; the leader need not be in the directory (yet). */
  team_leader_id: orNone(marketingIdSchema),
  email: orNone(emailSchema),
  active: z._default(z.boolean(), true),
};

/** One person as the platform puts them: `PUT /api/people/{marketing_id}`'s body. */
export const personSchema = z.strictObject(personFields);

/** Many at once, each with their id: `PUT /api/people`'s body. */
export const peopleSchema = z
  .array(z.strictObject({ marketing_id: marketingIdSchema, ...personFields }))
  .check(z.maxLength(peoplePerPut));

export type PersonInput = z.output<typeof personSchema>;

/** A person as the directory keeps them: `GET /api/people/{marketing_id}`'s answer. */
export interface Person {
  marketing_id: string;
  /** Null once erased: inactive for RETENTION_DAYS (docs/personal-data.md). */
  name: string | null;
  team_leader_id: string | null;
  email: string | null;
  active: boolean;
  /** Since when they are inactive (ISO); null while active. */
  inactive_since: string | null;
  /** When the platform last put them (ISO). */
  updated_at: string;
}
