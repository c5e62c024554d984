import type { Kysely } from 'kysely';
import type { Person, PersonInput } from '../../domain/people';
import { peoplePerPut } from '../../domain/people';
import { guarded } from '../db/database';
import { dropDeletedPages } from '../db/dialect';
import type { Database, PeopleTable, Tables } from '../db/schema';

/** What the numbers' answers show of a person: their name and their team (docs/program.md). */
export type Listed = Pick<Person, 'name' | 'team_leader_id'>;

/**
 * The directory's name and team leader of each id it knows (those it does not know are not in
 * the map), read on `db`: the counts' connection or transaction, with the numbers they name.
 */
export async function directoryOf(
  db: Kysely<Tables>,
  ids: Iterable<string>,
): Promise<Map<string, Listed>> {
  const wanted = [...new Set(ids)];
  const listed = new Map<string, Listed>();
  // A thousand ids a statement: under either database's limit of parameters.
  for (let start = 0; start < wanted.length; start += peoplePerPut) {
    const rows = await db
      .selectFrom('people')
      .select(['marketing_id', 'name', 'team_leader_id'])
      .where('marketing_id', 'in', wanted.slice(start, start + peoplePerPut))
      .execute();
    for (const { marketing_id, ...person } of rows) listed.set(marketing_id, person);
  }
  return listed;
}

/**
 * Each team leader's members as the directory has them (People.members: the active people whose
 * team leader they are, not the leader, by id), read on `db`; a leader with none is not in the
 * map.
 */
export async function membersOf(
  db: Kysely<Tables>,
  leaderIds: Iterable<string>,
): Promise<Map<string, string[]>> {
  const wanted = [...new Set(leaderIds)];
  const teams = new Map<string, string[]>();
  for (let start = 0; start < wanted.length; start += peoplePerPut) {
    const rows = await db
      .selectFrom('people')
      .select(['marketing_id', 'team_leader_id'])
      .where('team_leader_id', 'in', wanted.slice(start, start + peoplePerPut))
      .whereRef('marketing_id', '<>', 'team_leader_id')
      .where('active', '=', 1)
      .orderBy('marketing_id')
      .execute();
    for (const { marketing_id, team_leader_id } of rows) {
      const team = teams.get(team_leader_id!) ?? [];
      team.push(marketing_id);
      teams.set(team_leader_id!, team);
    }
  }
  return teams;
}

/** One person as the platform or a file puts them. */
export type PersonPut = PersonInput & { marketing_id: string };

/** The programme's people, as the provider's platform sends them (docs/program.md). */
export interface People {
  /**
   * Puts each person as sent, the whole of them (what is left out is unset), in one statement a
   * thousand: the same put twice leaves them as once (but `updated_at`). The same id twice: the
   * last one counts, as two puts one after the other.
   */
  put(people: readonly PersonPut[], now: Date): Promise<void>;
  /** One person as kept; undefined when the directory does not know them. */
  get(marketingId: string): Promise<Person | undefined>;
  /**
   * A team leader's members as the directory has them: the active people whose team leader they
   * are (not the leader), by id. Read on the counts' connection, as the numbers they go with.
   */
  members(leaderId: string): Promise<string[]>;
  /** The name and team leader of each id the directory knows, on the counts' connection. */
  directory(ids: readonly string[]): Promise<Map<string, Listed>>;
  /** Erases the name and e-mail of those inactive since before `inactiveBefore`; how many. */
  eraseInactive(inactiveBefore: string): Promise<number>;
  /** Removes what is kept about one person (a request for erasure); whether there was any. */
  remove(marketingId: string): Promise<boolean>;
}

function personOf(row: PeopleTable): Person {
  return { ...row, active: row.active === 1 };
}

export function createPeople(database: Database): People {
  const { db } = database;
  return {
    put: (people, now) =>
      guarded(database, async () => {
        const at = now.toISOString();
        const last = new Map(people.map((person) => [person.marketing_id, person]));
        const rows = [...last.values()].map(
          ({ marketing_id, name, team_leader_id, email, active }): PeopleTable => ({
            marketing_id,
            name,
            team_leader_id,
            email,
            active: active ? 1 : 0,
            inactive_since: active ? null : at,
            updated_at: at,
          }),
        );
        // 1,000 rows are 7,000 parameters: under SQLite's 32,766 and PostgreSQL's 65,535.
        for (let start = 0; start < rows.length; start += peoplePerPut) {
          await db
            .insertInto('people')
            .values(rows.slice(start, start + peoplePerPut))
            .onConflict((oc) =>
              oc.column('marketing_id').doUpdateSet((eb) => ({
                name: eb.ref('excluded.name'),
                team_leader_id: eb.ref('excluded.team_leader_id'),
                email: eb.ref('excluded.email'),
                active: eb.ref('excluded.active'),
                // Inactive since the first put that made them so: retention counts from it, and
                // the platform's daily sync of the same person does not start it again.
                inactive_since: eb
                  .case()
                  .when('excluded.inactive_since', 'is', null)
                  .then(null)
                  .else(eb.fn.coalesce('people.inactive_since', 'excluded.inactive_since'))
                  .end(),
                updated_at: eb.ref('excluded.updated_at'),
              })),
            )
            .execute();
        }
      }),
    get: (marketingId) =>
      guarded(database, async () => {
        const row = await db
          .selectFrom('people')
          .selectAll()
          .where('marketing_id', '=', marketingId)
          .executeTakeFirst();
        return row === undefined ? undefined : personOf(row);
      }),
    members: (leaderId) =>
      guarded(
        database,
        async () => (await membersOf(database.reads, [leaderId])).get(leaderId) ?? [],
      ),
    directory: (ids) => guarded(database, () => directoryOf(database.reads, ids)),
    eraseInactive: (inactiveBefore) =>
      guarded(database, async () => {
        const { numUpdatedRows } = await db
          .updateTable('people')
          .set({ name: null, email: null })
          .where('inactive_since', '<', inactiveBefore)
          .where((eb) => eb.or([eb('name', 'is not', null), eb('email', 'is not', null)]))
          .executeTakeFirst();
        const erased = Number(numUpdatedRows);
        if (erased > 0) await dropDeletedPages(database);
        return erased;
      }),
    remove: (marketingId) =>
      guarded(database, async () => {
        const { numDeletedRows } = await db
          .deleteFrom('people')
          .where('marketing_id', '=', marketingId)
          .executeTakeFirst();
        const removed = numDeletedRows > 0n;
        if (removed) await dropDeletedPages(database);
        return removed;
      }),
  };
}
