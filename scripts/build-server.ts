import { build } from 'esbuild';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const entries = {
  main: 'main',
  export: 'cli/export',
  report: 'report',
  'webhooks-cli': 'cli/webhooks',
  person: 'cli/person',
  lead: 'cli/lead',
};

/**
 * Compiles the server and its command lines (`npm run export`, `npm run report`) into plain
 * JavaScript in `outDir` (main.js, export.js, report.js and chunks), so production runs `node`
 * alone: tsx's loader costs each instance about 35 MB of memory, and tsx need not be installed
 * there. Packages stay imports from node_modules; the database and Redis drivers are chunks
 * loaded only when configured.
 */
export async function buildServer(outDir: string): Promise<void> {
  const { metafile } = await build({
    entryPoints: Object.entries(entries).map(([out, name]) => ({
      in: `src/server/${name}.ts`,
      out,
    })),
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
    metafile: true,
  });
  // export.ts and report.ts run only when their `import.meta.url` is the file node was given:
  // an entry that another entry imports lands in a shared chunk, and its guard never matches.
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    for (const [name, file] of Object.entries(entries)) {
      const source = `src/server/${file}.ts`;
      if (source in inputs && resolve(output) !== resolve(outDir, `${name}.js`)) {
        throw new Error(`build-server: ${source} is in ${output}, not only in ${name}.js`);
      }
    }
  }
}

/**
 * How node runs the compiled server; `npm start`, `npm run export` and `npm run report`
 * (package.json) run the same. Stack traces name the TypeScript lines, and V8 favours memory
 * over speed: under the API benchmark's load the peak resident set went from about 183 MB to
 * 115 MB, sign-ups per second unchanged.
 */
export const serverNodeArgs = ['--enable-source-maps', '--optimize-for-size'];

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outDir = process.argv[2] ?? 'dist/server';
  await buildServer(outDir);
  console.log(
    `build-server: wrote ${Object.keys(entries)
      .map((name) => `${outDir}/${name}.js`)
      .join(', ')}`,
  );
}
