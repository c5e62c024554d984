// `npx tsx scripts/og-image.ts`: draws src/web/public/og-image.png, the 1200x630 image of every
// link preview (src/web/head.ts), from an HTML card in Debian's chromium. Run it again only
// when the card's text (arPreview in the catalogue) or the brand colours change; the PNG is
// committed, so builds never need a browser. It draws with the system's Arabic font (on
// Debian, DejaVu Sans unless a Noto Arabic font is installed).
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { arPreview } from '../src/domain/catalogue/preview';
import { chromiumArgs, requireChromium } from './local-machine';

const executablePath = requireChromium();
const out = fileURLToPath(new URL('../src/web/public/og-image.png', import.meta.url));
const size = { width: 1200, height: 630 };

// The colours of src/web/styles.css and the mark of public/favicon.svg.
const card = `<!doctype html>
<html lang="ar" dir="rtl">
<meta charset="utf-8">
<style>
  html, body { margin: 0; width: ${size.width}px; height: ${size.height}px; }
  body {
    display: flex; align-items: center; gap: 64px; padding: 0 88px; box-sizing: border-box;
    background: #0b5d3b; border-bottom: 24px solid #084a2e;
    font-family: 'Noto Sans Arabic', 'Noto Kufi Arabic', 'DejaVu Sans', sans-serif;
    color: #fff;
  }
  main { flex: 1; }
  h1 { margin: 0 0 24px; font-size: 76px; font-weight: 700; line-height: 1.3; }
  p { margin: 0; font-size: 36px; line-height: 1.5; color: #e8f2ec; }
  hr { width: 160px; height: 8px; margin: 0 0 36px; border: 0; border-radius: 4px; background: #e8f2ec; }
  svg { flex: none; width: 220px; height: 220px; }
</style>
<body>
  <main>
    <hr>
    <h1>${arPreview.imageHeadline}</h1>
    <p>${arPreview.imageTagline}</p>
  </main>
  <svg viewBox="0 0 32 32" aria-hidden="true">
    <rect width="32" height="32" rx="7" fill="#fff"/>
    <path d="M9 16.5l4.5 4.5L23 11.5" fill="none" stroke="#0b5d3b" stroke-width="3.2"
      stroke-linecap="round" stroke-linejoin="round"/>
  </svg>
</body>
</html>`;

const browser = await chromium.launch({
  executablePath,
  args: chromiumArgs,
});
try {
  const page = await browser.newPage({ viewport: size, deviceScaleFactor: 1 });
  await page.setContent(card);
  await page.screenshot({ path: out, type: 'png' });
  console.log(`${out}  ${size.width}x${size.height}  ${Math.round(statSync(out).size / 1024)} KB`);
} finally {
  await browser.close();
}
