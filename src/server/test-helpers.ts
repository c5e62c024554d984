import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import SqliteDatabase from 'better-sqlite3';
import { onTestFinished } from 'vitest';
import { compressDirectory } from '../../scripts/compress';
import { ar } from '../domain/catalogue';
import { buildApp, type BuildOptions } from './app';
import { loadConfig, type Config } from './env';

export const fixtureScript = `console.log(${JSON.stringify('x'.repeat(2000))});\n`;
export const fixtureHead = `<title>${ar.titleGeneric(ar.brandDefault)}</title>`;
export const fixtureForm = `<h1>${ar.headingPrefix} ${ar.headingFreeTrial}</h1>`;

/**
 * A stand-in for `npm run build`: the template with both slots, one hashed asset (with its
 * .br and .gz), one unhashed file and a render module that knows one route, so these tests
 * never depend on the web build.
 */
export async function writeFixtureBuild(distDir: string): Promise<void> {
  await mkdir(join(distDir, 'web', 'assets'), { recursive: true });
  await mkdir(join(distDir, 'ssr'), { recursive: true });
  await writeFile(join(distDir, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(distDir, 'web', 'index.html'),
    '<!doctype html><html lang="ar" dir="rtl"><head><meta charset="UTF-8"><!--app-head-->' +
      '<script type="module" src="/register/assets/app-abc123.js"></script></head>' +
      '<body><div id="root"><!--app-html--></div></body></html>\n',
  );
  await writeFile(join(distDir, 'web', 'assets', 'app-abc123.js'), fixtureScript);
  await writeFile(join(distDir, 'web', 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await compressDirectory(join(distDir, 'web'));
  await writeFile(
    join(distDir, 'ssr', 'entry-server.js'),
    `export function render(url) {
      const path = url.split('?')[0];
      if (path === '/register/register-client') {
        return { html: ${JSON.stringify(fixtureForm)}, head: ${JSON.stringify(fixtureHead)}, status: 200 };
      }
      return { html: ${JSON.stringify(ar.notFound)}, head: '', status: 404 };
    }\n`,
  );
}

export interface StoredRow {
  id: string;
  created_at: string;
  name: string;
  email: string | null;
  phone: string;
  notes: string;
  marketing_id: string | null;
  package_key: string | null;
  source: string | null;
}

/**
 * Builds the app on a fresh SQLite file and a fixture build in a temp dir, capturing its log;
 * all of it is closed and removed when the calling test ends.
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  options: BuildOptions & { config?: Partial<Config> } = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'tasjeel-server-'));
  const distDir = join(dir, 'dist');
  const dbFile = join(dir, 'data', 'registrations.db');
  await writeFixtureBuild(distDir);

  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  const { config: overrides, ...buildOptions } = options;
  const config = {
    ...loadConfig({ DATABASE_URL: `sqlite:${dbFile}`, ...env }),
    distDir,
    ...overrides,
  };
  const app = await buildApp(config, { logger: { stream }, ...buildOptions });
  onTestFinished(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Every stored row, read through a connection of its own rather than the app's. */
  function rows(): StoredRow[] {
    const db = new SqliteDatabase(dbFile, { readonly: true });
    try {
      return db.prepare('select * from registrations order by created_at').all() as StoredRow[];
    } finally {
      db.close();
    }
  }

  return { app, dir, dbFile, rows, log: () => logLines.join('') };
}
