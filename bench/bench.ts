// `npm run bench` (or `bench:page`, `bench:api`): builds, measures against the performance
// limits, prints one Markdown table and writes it to bench/results/latest.md.
import { execFileSync } from 'node:child_process';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchApi, postgresDatabase, sqliteDatabase } from './api';
import { benchMarketerStats } from './marketer-stats';
import { benchMetrics } from './metrics';
import { chromiumPath } from '../scripts/local-machine';
import { benchPages } from './pages';
import { benchProgramRange, benchProgramStats } from './program-stats';
import { markdownTable, type Row } from './table';
import { benchWebhooks } from './webhooks';

const root = fileURLToPath(new URL('../', import.meta.url));
const resultsDir = join(root, 'bench', 'results');
const part = process.argv[2] ?? 'all';
if (!['all', 'page', 'api', 'webhooks', 'stats', 'program'].includes(part)) {
  console.error(`usage: tsx bench/bench.ts [page|api|webhooks|stats|program] (got "${part}")`);
  process.exit(2);
}

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const log = (line: string) => console.error(`bench [${elapsed()}] ${line}`);

function machine(): string {
  const chromium = execFileSync(chromiumPath, ['--version'], { encoding: 'utf8' }).trim();
  const [one, five] = loadavg().map((load) => load.toFixed(1));
  return (
    `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ` +
    `${(totalmem() / 1024 ** 3).toFixed(0)} GB; Node ${process.version}; ${chromium}; ` +
    `load average at start ${one} (1 min), ${five} (5 min)`
  );
}

/**
 * The production build, copied into a scratch folder inside the repository (dist/ssr and
 * dist/server import their packages from node_modules): the bench writes its JS-free page there, and
 * another `npm run build` running meanwhile cannot change what is being measured.
 */
async function build(scratch: string): Promise<string> {
  log('npm run build');
  try {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    console.error(`${stdout?.toString() ?? ''}${stderr?.toString() ?? ''}`);
    throw new Error('npm run build failed', { cause: error });
  }
  const distDir = join(scratch, 'dist');
  await cp(join(root, 'dist', 'web'), join(distDir, 'web'), { recursive: true });
  await cp(join(root, 'dist', 'ssr'), join(distDir, 'ssr'), { recursive: true });
  await cp(join(root, 'dist', 'server'), join(distDir, 'server'), { recursive: true });
  return distDir;
}

const about = machine();
const scratch = resolve(resultsDir, `scratch-${process.pid}`);
await mkdir(scratch, { recursive: true });
const rows: Row[] = [];
const notes: string[] = [];
try {
  const distDir = await build(scratch);
  if (part === 'all' || part === 'page') {
    const pages = await benchPages(distDir, scratch, log);
    rows.push(...pages.rows);
    notes.push(...pages.notes);
  }
  if (part !== 'page') {
    const databases = [sqliteDatabase(scratch)];
    // The same for PostgreSQL where one is configured, as for the server tests.
    const postgresUrl = process.env.TEST_DATABASE_URL;
    if (postgresUrl) databases.push(postgresDatabase(postgresUrl));
    for (const database of databases) {
      if (part !== 'webhooks') {
        // `stats` and `program`: the marketers' or the programme's numbers alone (seeding a
        // million rows takes a while).
        const measures =
          part === 'stats'
            ? [benchMarketerStats]
            : part === 'program'
              ? [benchProgramStats, benchProgramRange]
              : [benchApi, benchMetrics, benchMarketerStats, benchProgramStats, benchProgramRange];
        for (const measure of measures) {
          const measured = await measure(database, distDir, scratch, log);
          rows.push(...measured.rows);
          notes.push(...measured.notes);
        }
      }
      if (part === 'all' || part === 'webhooks') {
        const webhooks = await benchWebhooks(database, distDir, scratch, log);
        rows.push(...webhooks.rows);
        notes.push(...webhooks.notes);
      }
    }
  }
} catch (error) {
  log(`failed; the servers' logs are kept in ${scratch}`);
  throw error;
}
await rm(scratch, { recursive: true, force: true });

const report = [
  `## Benchmark: ${{ all: 'pages, API and webhooks', page: 'pages', api: 'API', webhooks: 'webhooks', stats: "marketers' numbers", program: "the programme's numbers" }[part]}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `Machine: ${about}.`,
  '',
  markdownTable(rows),
  '',
  ...notes.map((note) => `- ${note}`),
  `- Whole run: ${elapsed()}.`,
  '',
].join('\n');
await writeFile(join(resultsDir, 'latest.md'), report);
console.log(report);
