import pg from 'pg';

// A test's PostgreSQL schema is never dropped while a run goes on: Kysely's migrator lists the
// tables of every schema, and a schema dropped by another worker (or by another project's
// teardown) during that listing fails it ("schema … does not exist"). Each run's schemas carry
// the second it started; a later run drops those more than a few hours old, which no run that
// may still be going on can own.
const keptSeconds = 3 * 60 * 60;

/** The names of a run's schemas begin with this. */
export function testSchemaPrefix(run = process.env.TASJEEL_TEST_RUN ?? '0'): string {
  return `tasjeel_test_${run}_`;
}

/** Vitest's global setup (each project of a run calls it): one id for the run, old schemas gone. */
export default async function setup() {
  const started = Math.floor(Date.now() / 1000);
  process.env.TASJEEL_TEST_RUN ??= String(started);
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string; run: string }>(
      `select nspname as name, substring(nspname from '^tasjeel_test_([0-9]+)_') as run
       from pg_namespace where nspname ~ '^tasjeel_test_[0-9]+_'`,
    );
    for (const { name, run } of rows) {
      if (Number(run) < started - keptSeconds) await admin.query(`drop schema ${name} cascade`);
    }
  } finally {
    await admin.end();
  }
}
