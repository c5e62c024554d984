import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { compressDirectory } from './compress';

it('writes .gz and .br beside each text file, each the same bytes, gzip beyond zlib level 9', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tasjeel-compress-'));
  const script = Buffer.from(
    Array.from({ length: 2_000 }, (_, i) => `export const value${i} = ${i * 7} % 13;`).join('\n'),
  );
  await writeFile(join(dir, 'app.js'), script);
  await writeFile(join(dir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));

  expect(await compressDirectory(dir)).toBe(2);
  expect((await readdir(dir)).sort()).toEqual(['app.js', 'app.js.br', 'app.js.gz', 'image.png']);
  const gz = await readFile(join(dir, 'app.js.gz'));
  expect(gunzipSync(gz).equals(script)).toBe(true);
  expect(brotliDecompressSync(await readFile(join(dir, 'app.js.br'))).equals(script)).toBe(true);
  expect(gz.length).toBeLessThan(gzipSync(script, { level: 9 }).length);
  // Zopfli is slow by design; on a loaded machine 5 s is not always enough.
}, 30_000);
