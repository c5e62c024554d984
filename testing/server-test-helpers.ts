import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import SqliteDatabase from 'better-sqlite3';
import { Client } from 'pg';
import { describe, inject, onTestFinished } from 'vitest';
import { compressDirectory } from '../scripts/compress';
import { testSchemaPrefix } from './global-setup';
import { expectKeptCountsLive } from './kept-counts';
import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { ar } from '../src/domain/catalogue/shared';
import { formStampField } from '../src/domain/form-fields';
import { basePath } from '../src/domain/links';
import type { Brand, FormState } from '../src/domain/render-contract';
import { buildApp, type BuildOptions } from '../src/server/app';
import { loadConfig, type Config } from '../src/server/env';
import type {
  LeadFlagsTable,
  RegistrationsTable,
  WebhookEventsTable,
} from '../src/server/db/schema';

export const fixtureScript = `console.log(${JSON.stringify('x'.repeat(2000))});\n`;
export const fixtureHead = `<title>${ar.titleGeneric(ar.brandDefault)}</title>`;
export const fixtureForm = `<h1>${arForm.headingPrefix} ${ar.headingFreeTrial}</h1>`;
/** Like the web build's start-app.ts, an inline script that the CSP must allow by its hash. */
export const fixtureInlineScript = "document.documentElement.dataset.started = 'yes';";
/** Its hash, worked out once with `openssl dgst -sha256 -binary | base64`. */
export const fixtureInlineScriptHash = "'sha256-Va3vFmxxXReg5a9+3qghSkpKOPWSj0QdvO6PwUQoTQ8='";

// The fixture's render picks its screen with the pages' own matcher (the tests and the server
// processes that load it import TypeScript).
const routesModule = new URL('../src/domain/routes.ts', import.meta.url).href;

/** The og:url tag the fixture's form pages carry: the origin render was given, and the path. */
export function fixtureOgUrl(url: string): string {
  return `<meta property="og:url" content="${url}" />`;
}

/**
 * The screen of an e-mail link's page as the fixture draws it, and what the server told it a post
 * did ('' on a GET): `<p data-screen="confirmNotifications" data-mail-link="done">`.
 */
export function fixtureMailLink(page: string): { screen: string; mailLink: string } | undefined {
  const match = /<p data-screen="([^"]*)" data-mail-link="([^"]*)">/.exec(page);
  return match === null ? undefined : { screen: match[1]!, mailLink: match[2]! };
}

/** The brand the fixture's render was given, which it writes into the head as JSON. */
export function fixtureBrand(page: string): Brand | undefined {
  const json = /<meta name="fixture-brand" content="([^"]*)">/.exec(page)?.[1];
  return json === undefined ? undefined : (JSON.parse(decodeURIComponent(json)) as Brand);
}

/**
 * How the fixture's render shows the state of a form the server passes it (a form posted
 * without JavaScript): each field's value, marked when invalid, then the error and success
 * lines. Written into the fixture's module as its source, so it must use nothing from outside.
 */
export function fixtureFormState({ values, invalid, error, success }: FormState): string {
  const escape = (text: string) =>
    text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  const fields = (['name', 'email', 'phone'] as const).map(
    (field) =>
      `<input name="${field}" value="${escape(values[field])}"` +
      `${invalid.includes(field) ? ' aria-invalid="true"' : ''}>`,
  );
  return `${fields.join('')}<p role="alert">${escape(error)}</p><p role="status">${escape(success)}</p>`;
}

/**
 * A stand-in for `npm run build`: the template with both slots and an inline script, one
 * hashed asset (with its .br and .gz), one unhashed file and a render module that draws the
 * screen of each route (a form with an og:url from the origin it is given, and the brand it is
 * given), so these tests never depend on the web build.
 */
export async function writeFixtureBuild(distDir: string): Promise<void> {
  await mkdir(join(distDir, 'web', 'assets'), { recursive: true });
  await mkdir(join(distDir, 'ssr'), { recursive: true });
  await writeFile(join(distDir, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(distDir, 'web', 'index.html'),
    '<!doctype html><html lang="ar" dir="rtl"><head><meta charset="UTF-8"><!--app-head-->' +
      `<script data-src="/register/assets/app-abc123.js">${fixtureInlineScript}</script></head>` +
      '<body><div id="root"><!--app-html--></div></body></html>\n',
  );
  await writeFile(join(distDir, 'web', 'assets', 'app-abc123.js'), fixtureScript);
  await writeFile(join(distDir, 'web', 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(distDir, 'web', 'og-image.png'), 'not really a PNG');
  await compressDirectory(join(distDir, 'web'));
  await writeFile(
    join(distDir, 'ssr', 'entry-server.js'),
    `import { matchRoute } from ${JSON.stringify(routesModule)};
    export function render(url, { origin, brand, form: state, formStamp, mailLink }) {
      const path = url.split('?')[0];
      const { kind } = matchRoute(url, ${JSON.stringify(basePath)});
      if (kind === 'form') {
        const head = ${JSON.stringify(fixtureHead)} + fixtureOgUrl(origin + path) +
          '<meta name="fixture-brand" content="' + encodeURIComponent(JSON.stringify(brand)) + '">';
        const html = ${JSON.stringify(fixtureForm)} + (state ? fixtureFormState(state) : '') +
          '<input type="hidden" name="${formStampField}" value="' + (formStamp ?? '') + '">';
        return { html, head };
      }
      if (kind === 'confirmNotifications' || kind === 'stopNotifications') {
        return { html: '<p data-screen="' + kind + '" data-mail-link="' + (mailLink ?? '') + '"></p>', head: '' };
      }
      if (kind === 'myLink') {
        return { html: ${JSON.stringify(`<h1>${arLinkPage.heading}</h1>`)}, head: '' };
      }
      return { html: ${JSON.stringify(ar.notFound)}, head: '' };
    }
    function fixtureOgUrl(url) {
      return '<meta property="og:url" content="' + url + '" />';
    }
    ${fixtureFormState.toString()}\n`,
  );
}

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const testRedisUrl = process.env.TEST_REDIS_URL || undefined;
// A run on SQLite alone, said so: CI's other Node legs (.ci/other-node), where only the SQLite
// driver, a native addon built for each Node, differs from the main leg that ran PostgreSQL and
// Redis too. The PostgreSQL suites are then reported as skipped.
const sqliteOnly = process.env.TEST_SQLITE_ONLY === '1';

if (sqliteOnly && (testDatabaseUrl !== undefined || testRedisUrl !== undefined)) {
  throw new Error(
    'TEST_SQLITE_ONLY=1 leaves PostgreSQL and Redis out: unset TEST_DATABASE_URL and TEST_REDIS_URL',
  );
}
// CI must never go green by leaving PostgreSQL and Redis out unawares: there, every server test
// file that uses these helpers fails at once without them (.ci/run sets both).
if (
  process.env.CI &&
  !sqliteOnly &&
  (testDatabaseUrl === undefined || testRedisUrl === undefined)
) {
  throw new Error(
    'CI is set: the server tests need TEST_DATABASE_URL and TEST_REDIS_URL (or TEST_SQLITE_ONLY=1)',
  );
}

export type DatabaseKind = 'sqlite' | 'postgres';

/** What a test runs on: a database, and whether the rate limit counts in Redis. */
export interface TestBackend {
  name: string;
  database: DatabaseKind;
  redis: boolean;
}

/**
 * SQLite (with the in-memory rate limit) always; PostgreSQL, with Redis when TEST_REDIS_URL is
 * set, whenever TEST_DATABASE_URL is: the two deployments of docs/deploying.md.
 */
export const sqliteBackend: TestBackend = { name: 'SQLite', database: 'sqlite', redis: false };
const postgresBackend: TestBackend = {
  name: testRedisUrl === undefined ? 'PostgreSQL' : 'PostgreSQL and Redis',
  database: 'postgres',
  redis: testRedisUrl !== undefined,
};
/** The backends this run has. */
export const testBackends: TestBackend[] =
  testDatabaseUrl === undefined ? [sqliteBackend] : [sqliteBackend, postgresBackend];

/**
 * Runs `suite` once for each backend (`$name` in the title names it). Without
 * TEST_DATABASE_URL the PostgreSQL suite is still declared, and reported as skipped with its
 * tests, so that a run says what it left out.
 */
export function describeOnBackends(title: string, suite: (backend: TestBackend) => void): void {
  for (const backend of [sqliteBackend, postgresBackend]) {
    describe.skipIf(!testBackends.includes(backend))(title.replace('$name', backend.name), () =>
      suite(backend),
    );
  }
}

export interface TestDatabase {
  /** A DATABASE_URL for the app, the export or a server process. */
  url: string;
  /** Every stored row, read through a connection of its own rather than the app's. */
  rows(): Promise<RegistrationsTable[]>;
  /** Every webhook event, oldest first, read the same way. */
  events(): Promise<WebhookEventsTable[]>;
  /** Every lead's flags, by lead and flag, read the same way. */
  flags(): Promise<LeadFlagsTable[]>;
  /** Removes the database; call once whatever used it is closed. */
  drop(): Promise<void>;
}

/** A test database that its test's app has migrated, and the next test may have once emptied. */
interface ReusableTestDatabase extends TestDatabase {
  /** Call once the app has migrated it: the schema's shape that later tests may reuse. */
  migrated(): Promise<void>;
}

/** A unique name, for a PostgreSQL schema or a Redis key prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/**
 * An empty database of its own: a temp SQLite file, or on PostgreSQL a fresh schema that the
 * returned URL puts first on the search_path. A PostgreSQL that does not answer fails the test.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'tasjeel-db-'));
    const file = join(dir, 'data', 'registrations.db');
    const read = <Row>(table: string): Row[] => {
      const db = new SqliteDatabase(file, { readonly: true });
      try {
        // Rows of one time in the order they were stored: an index on created_at would
        // otherwise order them by whatever else it holds.
        const order = table === 'lead_flags' ? 'registration_id, flag' : 'created_at, rowid';
        return db.prepare(`select * from ${table} order by ${order}`).all() as Row[];
      } finally {
        db.close();
      }
    };
    return {
      url: `sqlite:${file}`,
      rows: async () => read<RegistrationsTable>('registrations'),
      events: async () => read<WebhookEventsTable>('webhook_events'),
      flags: async () => read<LeadFlagsTable>('lead_flags'),
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }

  const { schema, admin } = await createSchema();
  return postgresTestDatabase(schema, admin, () => admin.end());
}

async function createSchema(): Promise<{ schema: string; admin: Client }> {
  const schema = uniqueName(testSchemaPrefix(inject('testRun')).slice(0, -1));
  const admin = new Client({ connectionString: postgresUrl(), connectionTimeoutMillis: 5_000 });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  return { schema, admin };
}

function postgresUrl(): string {
  if (testDatabaseUrl === undefined) throw new Error('TEST_DATABASE_URL is not set');
  return testDatabaseUrl;
}

function postgresTestDatabase(
  schema: string,
  admin: Client,
  drop: () => Promise<void>,
): TestDatabase {
  const url = new URL(postgresUrl());
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.href,
    async rows() {
      const { rows } = await admin.query<RegistrationsTable>(
        `select * from ${schema}.registrations order by created_at`,
      );
      return rows;
    },
    async events() {
      const { rows } = await admin.query<WebhookEventsTable>(
        `select * from ${schema}.webhook_events order by created_at`,
      );
      return rows;
    },
    async flags() {
      const { rows } = await admin.query<LeadFlagsTable>(
        `select * from ${schema}.lead_flags order by registration_id, flag`,
      );
      return rows;
    },
    // The schema itself is dropped when the run ends (global-setup.ts).
    drop,
  };
}

// Migrating a new PostgreSQL schema takes half a second, and longer as a run's schemas pile up
// (Kysely's migrator reads the tables of every schema): a second at a few hundred, in each of
// the suite's 320 PostgreSQL tests. So the schemas of a file's apps are kept once their test is
// over, emptied, for the file's next tests; one whose shape its test changed (a migration
// forgotten, a trigger or a column added) is not reused.
const spareSchemas: { schema: string; admin: Client; shape: string }[] = [];

/** The schema's tables, columns, indexes, functions, triggers and migrations, as one string. */
async function schemaShape(admin: Client, schema: string): Promise<string> {
  const { rows } = await admin.query<{ shape: string }>(
    `select string_agg(name, ',' order by name) as shape from (
       select relname as name from pg_class where relnamespace = $1::regnamespace
       union all select relname || '.' || attname || ' ' || format_type(atttypid, atttypmod)
         from pg_attribute join pg_class on pg_class.oid = attrelid
         where relnamespace = $1::regnamespace and attnum > 0 and not attisdropped
       union all select proname from pg_proc where pronamespace = $1::regnamespace
       union all select tgname from pg_trigger join pg_class on pg_class.oid = tgrelid
         where relnamespace = $1::regnamespace
       union all select name from ${schema}.kysely_migration
     ) as objects`,
    [schema],
  );
  return rows[0]?.shape ?? '';
}

async function reusableTestDatabase(kind: DatabaseKind): Promise<ReusableTestDatabase> {
  if (kind === 'sqlite') return { ...(await createTestDatabase(kind)), migrated: async () => {} };
  const { schema, admin, shape } = spareSchemas.pop() ?? { ...(await createSchema()), shape: '' };
  let migratedShape = shape;
  const database = postgresTestDatabase(schema, admin, async () => {
    if (migratedShape === '' || (await schemaShape(admin, schema)) !== migratedShape) {
      await admin.end();
      return;
    }
    const { rows } = await admin.query<{ name: string }>(
      "select tablename as name from pg_tables where schemaname = $1 and tablename not like 'kysely%'",
      [schema],
    );
    await admin.query(`truncate ${rows.map(({ name }) => `${schema}.${name}`).join(', ')}`);
    spareSchemas.push({ schema, admin, shape: migratedShape });
  });
  return {
    ...database,
    async migrated() {
      if (migratedShape === '') migratedShape = await schemaShape(admin, schema);
    },
  };
}

/** TEST_REDIS_URL with a key prefix of its own, so that no two tests share a counter. */
export function testRedisUrlWithPrefix(): string {
  if (testRedisUrl === undefined) throw new Error('TEST_REDIS_URL is not set');
  const url = new URL(testRedisUrl);
  url.searchParams.set('keyPrefix', `${uniqueName('tasjeel_test')}:`);
  return url.href;
}

/**
 * Builds the app on a fresh database of the backend's kind and a fixture build in a temp dir,
 * capturing its log; all of it is closed and removed when the calling test ends.
 */
export async function buildTestApp(
  backend: TestBackend,
  env: Record<string, string> = {},
  options: BuildOptions & {
    config?: Partial<Config>;
    /** Changes the DATABASE_URL the app gets, e.g. to reach PostgreSQL through a proxy. */
    rewriteDatabaseUrl?: (url: string) => string;
  } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'tasjeel-server-'));
  const database = await reusableTestDatabase(backend.database);
  // Hooks run last-registered first: the app closes before its database is dropped.
  onTestFinished(async () => {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });
  const distDir = join(dir, 'dist');
  await writeFixtureBuild(distDir);

  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  const { config: overrides, rewriteDatabaseUrl = (url) => url, ...buildOptions } = options;
  const config = {
    ...loadConfig({
      DATABASE_URL: rewriteDatabaseUrl(database.url),
      ...(backend.redis ? { REDIS_URL: testRedisUrlWithPrefix() } : {}),
      ...env,
    }),
    distDir,
    ...overrides,
  };
  const { app, services } = await buildApp(config, { logger: { stream }, ...buildOptions });
  // Unless the test closed its database itself (to see what a closed one answers).
  const { database: opened } = services;
  const close = opened.close;
  let closed = false;
  opened.close = () => ((closed = true), close());
  const now = buildOptions.now ?? (() => new Date());
  // CI's other Node legs (.ci/other-node) leave the check out: what differs there is the SQLite
  // driver, and the check, two fifths of a server test's time, is the same SQL on every Node.
  const checkKeptCounts = process.env.TEST_KEPT_COUNTS !== 'off';
  app.addHook('preClose', async () => {
    if (!closed && checkKeptCounts) {
      await expectKeptCountsLive(opened, now(), () => services.visits.flush());
    }
  });
  onTestFinished(() => app.close());
  // Unless the app was pointed at another database, or at this one through a proxy.
  if (overrides?.database === undefined && rewriteDatabaseUrl(database.url) === database.url) {
    await database.migrated();
  }

  return {
    app,
    services,
    dir,
    databaseUrl: database.url,
    rows: database.rows,
    events: database.events,
    flags: database.flags,
    log: () => logLines.join(''),
  };
}
