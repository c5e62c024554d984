import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildNotes } from '../src/domain/notes';
import { packageKeys } from '../src/domain/packages';
import type { RegistrationPayload } from '../src/domain/registration';
import { buildServer } from '../scripts/build-server';
import { startServerProcess, type ServerProcess } from '../testing/server-process';

export const repoRoot = fileURLToPath(new URL('../', import.meta.url));
export const registerPath = '/api/external-register';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The pages as the server tests' writeFixtureBuild makes them (a template with both slots and
 * a render module), written here because testing/server-test-helpers.ts needs Vitest to
 * import. The pages are not what these runs measure, and this spares them `npm run build`.
 */
async function writeFixturePages(distDir: string): Promise<void> {
  await mkdir(join(distDir, 'web'), { recursive: true });
  await mkdir(join(distDir, 'ssr'), { recursive: true });
  await writeFile(join(distDir, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(distDir, 'web', 'index.html'),
    '<!doctype html><html lang="ar" dir="rtl"><head><!--app-head--></head>' +
      '<body><div id="root"><!--app-html--></div></body></html>\n',
  );
  await writeFile(
    join(distDir, 'ssr', 'entry-server.js'),
    "export function render() { return { html: '', head: '' }; }\n",
  );
}

export interface RunFiles {
  /** The scratch folder, removed at the end unless a check failed. */
  dir: string;
  distDir: string;
  databaseFile: string;
  logFile: string;
}

/**
 * A scratch folder for one run, with the server compiled into it as `npm run build` does and
 * the fixture pages. It lies inside the repository so the compiled server's imports resolve
 * from node_modules.
 */
export async function prepareRun(name: string): Promise<RunFiles> {
  const cache = join(repoRoot, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, `tasjeel-${name}-`));
  const distDir = join(dir, 'dist');
  await writeFixturePages(distDir);
  await buildServer(join(distDir, 'server'));
  return {
    dir,
    distDir,
    databaseFile: join(dir, 'data', 'registrations.db'),
    logFile: join(dir, 'server.log'),
  };
}

export interface ServerOptions {
  databaseFile: string;
  distDir: string;
  /** Appended to: the server's stdout and stderr, its log as in production. */
  logFile: string;
  env?: Record<string, string>;
}

// Inherited settings that would change what runs (Redis, a proxy, CORS) are dropped.
const droppedVariables = [
  'REDIS_URL',
  'TRUST_PROXY',
  'CORS_ORIGINS',
  'SITE_URL',
  'DATABASE_POOL_SIZE',
  'RATE_LIMIT_PER_MINUTE',
];

/** The compiled server as `npm start` runs it, on the run's own database and pages. */
export function startServer(options: ServerOptions): Promise<ServerProcess> {
  return startServerProcess({
    entry: join(options.distDir, 'server', 'main.js'),
    env: {
      ...Object.fromEntries(droppedVariables.map((name) => [name, undefined])),
      DATABASE_URL: `sqlite:${options.databaseFile}`,
      DIST_DIR: options.distDir,
      LOG_LEVEL: 'info',
      // Every request comes from 127.0.0.1: the per-IP limit would refuse the load itself.
      RATE_LIMIT_PER_MINUTE: '100000000',
      ...options.env,
    },
    logFile: options.logFile,
  });
}

export interface Outcome {
  status?: number;
  retryAfter?: string;
  body?: string;
  /** A connection failure: ECONNREFUSED, ECONNRESET, TIMEOUT (no answer in time), ... */
  error?: string;
  start: number;
  end: number;
}

export interface SendOptions {
  port: number;
  method?: string;
  path?: string;
  body?: string;
  /** The body's type: application/json unless given. */
  contentType?: string;
  agent?: Agent | false;
  timeoutMs?: number;
  /** More request headers (an Authorization). */
  headers?: Record<string, string>;
}

/** One HTTP request; never throws: a failure is an Outcome with `error`. */
export function send(options: SendOptions): Promise<Outcome> {
  const { port, method = 'POST', path = registerPath, body, agent = false } = options;
  const { contentType = 'application/json' } = options;
  const start = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<Outcome, 'start' | 'end'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, start, end: performance.now() });
    };
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...options.headers,
          ...(body === undefined
            ? {}
            : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          settle({
            status: res.statusCode,
            retryAfter: res.headers['retry-after'],
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on('error', (error: NodeJS.ErrnoException) => settle({ error: error.code ?? 'ERROR' }));
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => {
      settle({ error: 'TIMEOUT' });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      settle({ error: error.code ?? error.message }),
    );
    req.end(body);
  });
}

const firstNames = ['سارة', 'محمد', 'نورة', 'عبدالله', 'ريم', 'فيصل', 'لمى', 'خالد', 'هيا', 'تركي'];
const lastNames = ['المطيري', 'القحطاني', 'الشهري', 'العتيبي', 'الدوسري', 'الحربي', 'الزهراني'];
const emailDomain = 'mail.example';

/**
 * Sign-up number `i` of a run: a phone of its own (so the 24-hour rule never folds two into one
 * row), an Arabic name (some with an RTL mark or an emoji), an e-mail for every other one.
 */
export function signUp(i: number, phoneBase: number): RegistrationPayload {
  const name = `${firstNames[i % firstNames.length]} ${lastNames[(i >> 3) % lastNames.length]}`;
  const decorated = i % 5 === 0 ? `\u200f${name}` : i % 7 === 0 ? `${name} 🌙` : name;
  const marketingId = i % 3 === 0 ? `m${i % 40}` : undefined;
  const packageName = i % 2 === 0 ? packageKeys[i % packageKeys.length] : undefined;
  return {
    name: decorated,
    ...(i % 2 === 0 ? { email: `lead.${i}@${emailDomain}` } : {}),
    phone: `9665${String(phoneBase + i).padStart(8, '0')}`,
    notes: buildNotes({ packageName, marketingId }),
    ...(marketingId === undefined ? {} : { marketing_id: marketingId }),
  };
}

/**
 * Log lines holding personal data. Every sent name is Arabic, every phone 9665 and 8 digits,
 * every e-mail at one domain, so three patterns find any of them, whether or not it was
 * quoted whole: Arabic letters (the log is English), a phone-shaped number standing alone
 * (not inside a timestamp), an e-mail at that domain.
 */
export function scanLog(file: string): { lines: number; leaks: number; examples: string[] } {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
  const leaking = lines.filter(
    (line) =>
      /[\u0600-\u06ff]/.test(line) ||
      /(?<!\d)9665\d{8}(?!\d)/.test(line) ||
      line.includes(`@${emailDomain}`),
  );
  return { lines: lines.length, leaks: leaking.length, examples: leaking.slice(0, 3) };
}

/** Resident set size of a process now, in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kilobytes === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kilobytes) * 1024;
}

/** Figures and checks: each check prints a line; any failed one makes the exit code 1. */
export function createReport(title: string) {
  const failures: string[] = [];
  console.log(`\n== ${title}`);
  return {
    figure(label: string, value: unknown) {
      console.log(`  ${label}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    },
    check(label: string, ok: boolean, detail = '') {
      console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${label}${detail === '' ? '' : ` (${detail})`}`);
      if (!ok) failures.push(label);
    },
    finish() {
      if (failures.length > 0) {
        console.log(`${title}: ${failures.length} check(s) failed: ${failures.join('; ')}`);
        process.exitCode = 1;
      } else {
        console.log(`${title}: all checks passed`);
      }
    },
  };
}

/**
 * The end of every run: no log line may hold what was sent, then the verdict; the scratch
 * folder stays for inspection when a check failed.
 */
export async function finishRun(
  report: ReturnType<typeof createReport>,
  { logFile, started, dir }: { logFile: string; started: number; dir: string },
): Promise<void> {
  const log = scanLog(logFile);
  report.figure('log lines scanned', log.lines);
  report.check(
    'log lines with a phone, an e-mail or a name',
    log.leaks === 0,
    `${log.leaks} ${log.examples.join(' | ')}`,
  );
  report.figure('run time', `${((performance.now() - started) / 1000).toFixed(1)} s`);
  report.finish();
  if (process.exitCode === 1) console.log(`kept for inspection: ${dir}`);
  else await rm(dir, { recursive: true, force: true });
}

export function tally<K extends string | number>(counts: Partial<Record<K, number>>, key: K) {
  counts[key] = (counts[key] ?? 0) + 1;
}

export function describeOutcome(outcome: Outcome): string {
  return outcome.status === undefined ? (outcome.error ?? 'ERROR') : String(outcome.status);
}

/** A client's address of its own for each n (10.x.y.z), as a proxy names it. */
export const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** Steady sign-ups through marketers' links: where the next one's number starts, and who. */
export interface SteadySignUps {
  port: number;
  perSecond: number;
  /** Sign-up i is through marketer i mod this many's link. */
  marketers: number;
  /** Whether to send another. */
  going: () => boolean;
  /** Each outcome, as it comes. */
  record: (outcome: Outcome) => void;
  /** The next sign-up's number: each its own phone and address, across calls. */
  counter: { next: number };
}

/**
 * Sign-ups at a steady rate while `going()`, each through a marketer's link from its own
 * address (the per-address limit is the server's); resolves once every one is answered.
 */
export async function sendSteadySignUps(options: SteadySignUps): Promise<void> {
  const { port, perSecond, marketers, going, record, counter } = options;
  const sent: Promise<void>[] = [];
  for (let at = performance.now(); going(); at += 1000 / perSecond) {
    await sleep(Math.max(0, at - performance.now()));
    const i = counter.next++;
    const marketingId = String(i % marketers);
    const body = JSON.stringify({
      name: 'سارة العتيبي',
      phone: `9665${String(70_000_000 + i).padStart(8, '0')}`,
      notes: buildNotes({ marketingId }),
      marketing_id: marketingId,
    });
    const headers = { 'x-forwarded-for': addressOf(i + 1) };
    sent.push(send({ port, body, headers, timeoutMs: 30_000 }).then(record));
  }
  await Promise.all(sent);
}

export function ms(value: number) {
  return `${Math.round(value)} ms`;
}

/** The q-quantile of sorted times (0 for none). */
export function quantile(sorted: number[], q: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/** One statement on PostgreSQL at `url` (TEST_DATABASE_URL by default); its rows. */
export async function onPostgres(statement: string, url = process.env.TEST_DATABASE_URL) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(statement)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/**
 * The run's database: the SQLite file, or (`postgres`) a schema of its own on TEST_DATABASE_URL,
 * made now and dropped by `drop`.
 */
export async function runDatabase(name: string, databaseFile: string, postgres: boolean) {
  if (!postgres) return { databaseUrl: `sqlite:${databaseFile}`, drop: async () => {} };
  const base = process.env.TEST_DATABASE_URL;
  if (base === undefined) throw new Error('--postgres needs TEST_DATABASE_URL');
  const schema = `${name}_${process.pid}`;
  await onPostgres(`drop schema if exists ${schema} cascade; create schema ${schema}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.href,
    drop: async () => void (await onPostgres(`drop schema ${schema} cascade`)),
  };
}
