import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serverNodeArgs } from '../scripts/build-server';
import { freePort } from '../scripts/local-machine';
import { shutdownLimitMs } from '../src/server/server-limits';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

/** A port nothing listens on now, for a second listener of a server process (src/ may not import scripts/). */
export { freePort };

/**
 * `npm run build`'s steps as one shell command, into a build of the caller's own: a server
 * reads its template and asset names once at start, so an `npm run build` elsewhere during a
 * run (it empties dist/) would leave its pages pointing at assets that are gone. `distDir`
 * must be inside the repository, so that the server renderer's imports of react resolve.
 */
/**
 * The browser tests' own build (playwright.config.ts builds it at the start of each run); the
 * tests of the built server that come after them in `npm test` reuse it.
 */
export const testBuildDir = `${repoRoot}node_modules/.cache/tasjeel-e2e/dist`;

export function buildCommand(distDir: string): string {
  return [
    `vite build --outDir ${distDir}/web`,
    `vite build --ssr entry-server.tsx --outDir ${distDir}/ssr`,
    `tsx scripts/compress.ts ${distDir}/web`,
    `tsx scripts/build-server.ts ${distDir}/server`,
  ].join(' && ');
}

/** How node runs `entry`: a compiled file as `npm start` runs it, a TypeScript file through tsx. */
export function nodeArgsFor(entry: string): string[] {
  return entry.endsWith('.ts') ? ['--import', 'tsx'] : serverNodeArgs;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** performance.now() when the process was seen to exit. */
  at: number;
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  /** http://127.0.0.1:port */
  origin: string;
  /** ms from spawn until the ready path answered. */
  startMs: number;
  exited: Promise<Exit>;
  /** SIGTERM; SIGKILL only if the server outlives its own shutdown limit. */
  stop(): Promise<Exit>;
}

export interface ServerProcessOptions {
  /** A compiled `main.js`, run as `npm start` runs it, or a TypeScript file, run through tsx. */
  entry: string;
  /** Over the inherited environment (undefined drops a variable); PORT and HOST are set here. */
  env: Record<string, string | undefined>;
  /** Appended to: the server's stdout and stderr, its log as in production. */
  logFile: string;
  /** A GET path that answers 2xx once the server is ready. */
  readyPath?: string;
}

/**
 * A server as a child process of this one on a free loopback port, resolved once it answers.
 * Node runs it directly, never through npm: a SIGKILL of npm would leave the server running.
 */
export async function startServerProcess(options: ServerProcessOptions): Promise<ServerProcess> {
  const { entry, logFile, readyPath = '/api/health' } = options;
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const log = openSync(logFile, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgsFor(entry), entry], {
    cwd: repoRoot,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  let gone = false;
  void exited.then(() => (gone = true));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone) throw new Error(`${entry} exited at start; see ${logFile}`);
    const ok = await fetch(`${origin}${readyPath}`, { signal: AbortSignal.timeout(2_000) }).then(
      async (response) => (await response.arrayBuffer(), response.ok),
      () => false, // not listening yet
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} did not answer within 30 s; see ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    child,
    pid: child.pid!,
    port,
    origin,
    startMs: performance.now() - started,
    exited,
    async stop() {
      if (!gone) child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), shutdownLimitMs + 5_000);
      const exit = await exited;
      clearTimeout(killer);
      return exit;
    },
  };
}
