import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** BRAND_LOGO, read once at start: served from memory, its size written into every header. */
export interface LogoFile {
  type: 'image/png' | 'image/svg+xml';
  body: Buffer;
  /** In pixels, from the file: the page reserves the logo's box before it loads. */
  width: number;
  height: number;
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

// The first chunk of a PNG is IHDR, whose first eight bytes are the width and height.
function pngSize(body: Buffer): { width: number; height: number } | undefined {
  if (body.length < 24 || body.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) };
}

/** A length attribute of the root element, in user units or px (a % or em has no fixed size). */
function svgLength(tag: string, name: string): number | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*["']\\s*([\\d.]+)\\s*(px)?\\s*["']`).exec(tag);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

function svgSize(text: string): { width: number; height: number } | undefined {
  const tag = /<svg\b[^>]*>/.exec(text)?.[0];
  if (tag === undefined) return undefined;
  const width = svgLength(tag, 'width');
  const height = svgLength(tag, 'height');
  if (width !== undefined && height !== undefined) return { width, height };
  const viewBox = /\sviewBox\s*=\s*["']([^"']*)["']/
    .exec(tag)?.[1]
    ?.trim()
    .split(/[\s,]+/);
  if (viewBox?.length !== 4) return undefined;
  return { width: Number(viewBox[2]), height: Number(viewBox[3]) };
}

// An SVG is XML text: its root element may follow a declaration, comments and a doctype.
function startsWithSvg(text: string): boolean {
  let rest = text.replace(/^\uFEFF/, '').trimStart();
  for (;;) {
    const prolog = /^<(\?[\s\S]*?\?>|!--[\s\S]*?-->|!DOCTYPE[^>]*>)/i.exec(rest);
    if (prolog === null) return /^<svg[\s>]/.test(rest);
    rest = rest.slice(prolog[0].length).trimStart();
  }
}

/**
 * Reads the logo at `path`: a PNG, or an SVG whose root gives its width and height (or a
 * viewBox). Throws a message for the operator, who set BRAND_LOGO, when it is neither.
 */
export function readLogo(path: string): LogoFile {
  const file = resolve(path);
  let body: Buffer;
  try {
    body = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(`cannot read ${file} (${code})`, { cause: error });
  }
  const isPng = body.subarray(0, pngSignature.length).equals(pngSignature);
  const isSvg = !isPng && startsWithSvg(body.toString('utf8', 0, 4096));
  if (!isPng && !isSvg) throw new Error(`${file} is not a PNG or SVG image`);
  const size = isPng ? pngSize(body) : svgSize(body.toString('utf8'));
  if (
    size === undefined ||
    !(Number.isFinite(size.width) && size.width > 0) ||
    !(Number.isFinite(size.height) && size.height > 0)
  ) {
    throw new Error(
      isPng
        ? `${file} is not a valid PNG image`
        : `${file} has no size: give its <svg> a width and height in px, or a viewBox`,
    );
  }
  return { type: isPng ? 'image/png' : 'image/svg+xml', body, ...size };
}

/** Where the logo is served: named by its content, so that it can be cached for good. */
export function logoSrc(logo: LogoFile): string {
  const hash = createHash('sha256').update(logo.body).digest('hex').slice(0, 12);
  return `/register/brand-logo-${hash}.${logo.type === 'image/png' ? 'png' : 'svg'}`;
}
