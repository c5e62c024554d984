import { build } from 'esbuild';
import { pathToFileURL } from 'node:url';

/**
 * Compiles the server and its command lines into plain JavaScript in `outDir` (main.js,
 * tasjeel.js, export.js, report.js… and chunks), so production runs `node` alone: tsx's loader
 * costs each instance about 35 MB of memory, and tsx need not be installed there. Packages stay
 * imports from node_modules; the database and Redis drivers are chunks loaded only when
 * configured.
 */
export async function buildServer(outDir: string): Promise<string[]> {
  // Imported here only, so that what imports serverNodeArgs does not load the server.
  const { commandFiles } = await import('../src/server/cli/commands');
  // The command lines' one entry, under its own name and under each command's: its code is in
  // a chunk they all import, and the name of the file node is given names the command.
  const entries = [
    { in: 'src/server/main.ts', out: 'main' },
    // The counts' threads, started by db/counts-thread.ts from beside the chunks.
    { in: 'src/server/db/sqlite-reader-thread.ts', out: 'sqlite-reader-thread' },
    { in: 'src/server/db/postgres-count-thread.ts', out: 'postgres-count-thread' },
    ...['tasjeel', ...commandFiles.keys()].map((out) => ({ in: 'src/server/cli/tasjeel.ts', out })),
  ];
  await build({
    entryPoints: entries,
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  return entries.map(({ out }) => `${outDir}/${out}.js`);
}

/**
 * How node runs the compiled server; `npm start` and the command lines (package.json) run the
 * same. Stack traces name the TypeScript lines. Not `--optimize-for-size`: it kept the peak near
 * 120 MB rather than 170-240 MB under the API benchmark's load, but its small young generation
 * made the collector a fifth of a sign-up's time, and it cost a third to a half of the sign-ups
 * per second (docs/performance.md).
 */
export const serverNodeArgs = ['--enable-source-maps'];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outDir = process.argv[2] ?? 'dist/server';
  console.log(`build-server: wrote ${(await buildServer(outDir)).join(', ')}`);
}
