import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { freePort } from '../scripts/local-machine';

export interface ChildServer {
  origin: string;
  pid: number;
  /** The largest resident set the process has had so far (VmHWM), in bytes. */
  peakRss(): number;
  stop(): Promise<void>;
}

export interface ChildServerOptions {
  /** The script node runs: one process, so its pid is the server. */
  entry: string;
  /** Node's options before the entry; `--import tsx` (a TypeScript entry) unless given. */
  nodeArgs?: string[];
  env: Record<string, string>;
  /** Where the server's stdout and stderr go (its log, as in production). */
  logFile: string;
  /** A GET path that answers 2xx once the server is ready. */
  readyPath: string;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a server as a child process on a free port and waits until it answers. */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const log = openSync(options.logFile, 'a');
  const nodeArgs = options.nodeArgs ?? ['--import', 'tsx'];
  const child = spawn(process.execPath, [...nodeArgs, options.entry], {
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let exitedEarly = false;
  child.once('exit', () => (exitedEarly = true));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exitedEarly) {
      throw new Error(`${options.entry} exited at start; see ${options.logFile}`);
    }
    try {
      const response = await fetch(`${origin}${options.readyPath}`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.entry} did not answer within 30 s; see ${options.logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    origin,
    pid: child.pid as number,
    peakRss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kilobytes = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
      if (kilobytes === undefined) throw new Error(`no VmHWM for pid ${child.pid}`);
      return Number(kilobytes) * 1024;
    },
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited(child);
      clearTimeout(killer);
    },
  };
}
