import { readdir, readFile, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants } from 'node:zlib';
import { gzipAsync } from '@gfx/zopfli';

// Text formats only: images and fonts are compressed already.
const compressible = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json', '.txt', '.xml']);

/**
 * Writes a .br and a .gz beside every text file under `dir`, so the server sends them as they
 * are (@fastify/static's preCompressed) instead of compressing on every request. A variant
 * that would not be smaller is not written, and the server falls back to the plain file.
 */
export async function compressDirectory(dir: string): Promise<number> {
  let written = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !compressible.has(extname(entry.name))) continue;
    const file = join(entry.parentPath, entry.name);
    const content = await readFile(file);
    const variants = {
      br: brotliCompressSync(content, {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
      }),
      // Zopfli: the same gzip any browser reads, about 3 % smaller than zlib's level 9 (the
      // form's JavaScript: 73.6 KB instead of 76.3 KB), for a second or two once per build.
      gz: Buffer.from(await gzipAsync(content, { numiterations: 15 })),
    };
    for (const [extension, compressed] of Object.entries(variants)) {
      if (compressed.length >= content.length) continue;
      await writeFile(`${file}.${extension}`, compressed);
      written += 1;
    }
  }
  return written;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = process.argv[2] ?? 'dist/web';
  const written = await compressDirectory(dir);
  console.log(`compress: wrote ${written} .br/.gz files in ${dir}`);
}
