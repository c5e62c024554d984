import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Vitest's global setup. A test's PostgreSQL schema is dropped when the whole run ends, not when
 * the test does: Kysely's migrator lists the tables of every schema, and a schema dropped by
 * another worker during that listing fails it ("schema … does not exist"). The run's schemas
 * carry its id, so a run drops only its own.
 */
export default function setup() {
  // Each project of the run calls it: one id for them all.
  const run = (process.env.TASJEEL_TEST_RUN ??= randomBytes(4).toString('hex'));
  return async () => {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) return;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ name: string }>(
        'select nspname as name from pg_namespace where nspname like $1',
        [`${testSchemaPrefix(run)}%`],
      );
      for (const { name } of rows) await admin.query(`drop schema ${name} cascade`);
    } finally {
      await admin.end();
    }
  };
}

/** The names of a run's schemas begin with this. */
export function testSchemaPrefix(run = process.env.TASJEEL_TEST_RUN ?? 'alone'): string {
  return `tasjeel_test_${run}_`;
}
