import { request } from 'node:http';
import { gzipSync } from 'node:zlib';

export type Kind = 'html' | 'js' | 'css' | 'font' | 'other';
export type Encoding = 'identity' | 'gzip' | 'br';
export const encodings: readonly Encoding[] = ['identity', 'gzip', 'br'];

/**
 * Body bytes per kind and per Accept-Encoding, as the server sends them (not decoded), and
 * `level9`: the plain body gzipped at zlib's level 9, the measure of the forms' JavaScript
 * budget. The server's .gz files are Zopfli's, about 3 % smaller: a compressor's setting is
 * not what the budget watches.
 */
export type PageWeight = Record<Kind, Record<Encoding | 'level9', number>>;

const kinds: Record<string, Kind> = {
  Document: 'html',
  Script: 'js',
  Stylesheet: 'css',
  Font: 'font',
};

function body(url: string, encoding: Encoding): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': encoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(Buffer.concat(chunks))
          : reject(new Error(`${url}: ${response.statusCode}`)),
      );
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Weighs what a screen loaded (the requests Lighthouse saw, same origin only, the API's answers
 * left out), fetching each again with each Accept-Encoding: a file with no .br or .gz beside it
 * is sent as it is.
 */
export async function weighPage(
  origin: string,
  requests: { url: string; resourceType: string }[],
): Promise<PageWeight> {
  const weight = Object.fromEntries(
    (['html', 'js', 'css', 'font', 'other'] as const).map((kind) => [
      kind,
      { identity: 0, gzip: 0, br: 0, level9: 0 },
    ]),
  ) as PageWeight;
  const seen = new Set<string>();
  for (const { url, resourceType } of requests) {
    // The API's answers are the visitor's data, not the page, and need the visitor's token.
    if (!url.startsWith(`${origin}/`) || url.startsWith(`${origin}/api/`) || seen.has(url)) {
      continue;
    }
    seen.add(url);
    const kind = kinds[resourceType] ?? 'other';
    for (const encoding of encodings) {
      const bytes = await body(url, encoding);
      weight[kind][encoding] += bytes.length;
      if (encoding === 'identity') weight[kind].level9 += gzipSync(bytes, { level: 9 }).length;
    }
  }
  return weight;
}
