import pg from 'pg';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run and project a test's PostgreSQL schema belongs to (testSchemaPrefix). */
    testRun: string;
  }
}

// A test's PostgreSQL schema is dropped when its project's run ends, not when the test does:
// Kysely's migrator lists the tables of every schema, and a schema dropped by another worker
// during that listing fails it ("schema … does not exist"). Each project of a run names its
// schemas apart, so that one project's end never drops another's; a run that could not drop
// its own (killed) leaves them to a run hours later.
const keptSeconds = 3 * 60 * 60;

/** The names of the schemas of one project's run begin with this. */
export function testSchemaPrefix(run: string): string {
  return `tasjeel_test_${run}_`;
}

async function dropSchemas(url: string, matching: (name: string) => boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string }>(
      "select nspname as name from pg_namespace where nspname like 'tasjeel\\_test\\_%'",
    );
    for (const { name } of rows.filter(({ name }) => matching(name))) {
      await admin.query(`drop schema ${name} cascade`);
    }
  } finally {
    await admin.end();
  }
}

/** Vitest's global setup, called once for each project of a run. */
export default async function setup(project: TestProject) {
  const started = Math.floor(Date.now() / 1000);
  const run = `${started}${project.name.replace(/\W/g, '')}`;
  project.provide('testRun', run);
  const url = process.env.TEST_DATABASE_URL;
  if (!url) return;
  await dropSchemas(url, (name) => {
    const seconds = /^tasjeel_test_([0-9]+)[a-z]*_/.exec(name)?.[1];
    return seconds !== undefined && Number(seconds) < started - keptSeconds;
  });
  return () => dropSchemas(url, (name) => name.startsWith(testSchemaPrefix(run)));
}
