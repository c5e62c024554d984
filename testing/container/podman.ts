import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** This machine's podman settings (runc, no default ulimits), for podman and podman-compose. */
export const containersConf = fileURLToPath(new URL('containers.conf', import.meta.url));

const environment = { ...process.env, CONTAINERS_CONF: containersConf };

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end with podman's settings; a non-zero exit is a result, not a throw. */
export function run(program: string, args: string[], cwd?: string): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(stdout).toString(),
        stderr: Buffer.concat(stderr).toString(),
      }),
    );
  });
}

/** The last lines of what a failed command printed, for the error that reports it. */
function tail(result: Result, lines = 30): string {
  return `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-lines).join('\n');
}

/** Runs a program and returns its standard output; throws with its last lines when it fails. */
export async function runOk(program: string, args: string[], cwd?: string): Promise<string> {
  const result = await run(program, args, cwd);
  if (result.code !== 0) {
    throw new Error(`${program} ${args.join(' ')} exited ${result.code}:\n${tail(result)}`);
  }
  return result.stdout;
}

export const podman = (...args: string[]) => runOk('podman', args);

/** Podman's answer to `image exists` (or container, volume, network). */
export async function exists(kind: 'image' | 'container' | 'volume' | 'network', name: string) {
  return (await run('podman', [kind, 'exists', name])).code === 0;
}

const tools = ['podman', 'runc', 'mmdebstrap', 'podman-compose'];

function missingTools(): string[] {
  return tools.filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * Installs Debian's podman, runc, mmdebstrap and podman-compose when one is missing, as
 * scripts/ensure-chromium.ts does for chromium: only root can, anyone else is told the command.
 */
export function ensureTools(): void {
  const missing = missingTools();
  if (missing.length === 0) return;
  const install = `apt-get update && apt-get install -y ${tools.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new Error(`Missing ${missing.join(', ')}: run 'sudo sh -c "${install}"'.`);
  }
  console.log(`Missing ${missing.join(', ')}: running '${install}'`);
  execFileSync('sh', ['-c', install], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}
