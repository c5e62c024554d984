// `npm run screenshots`: builds the pages into a folder of its own, starts the server from its
// sources (src/server/main.ts through tsx) on a free port with a fresh SQLite file, and saves a PNG of every
// screen and state, on a phone and on a desktop, into docs/screenshots/. The server runs with a
// made-up provider (testing/sample-brand.ts: a name, a logo and a licence), so the pictures show
// the whole header. Chromium is Debian's (or CHROME_PATH).
import { execSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContextOptions, type Page } from '@playwright/test';
import { waitForHydration } from '../e2e/hydration';
import { ar } from '../src/domain/catalogue';
import { sampleBrand, sampleBrandEnv } from '../testing/sample-brand';
import { startServerProcess } from '../testing/server-process';
import { chromiumArgs, requireChromium } from './local-machine';

const outDir = 'docs/screenshots';
const executablePath = requireChromium();

const devices: Record<string, BrowserContextOptions> = {
  phone: {
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
  },
  desktop: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 },
};

const formPath = '/register/register-client/premium_reco/1001';
const linkPath = '/register/my-registration-link';
const visitorName = 'نورة القحطاني';

async function open(page: Page, path: string) {
  await page.goto(path);
  await waitForHydration(page);
}

async function fill(page: Page, phone: string) {
  await page.getByRole('textbox', { name: ar.fieldName }).fill(visitorName);
  await page.getByRole('textbox', { name: ar.fieldEmail }).fill('noura@example.com');
  await page.getByRole('textbox', { name: ar.fieldPhone }).fill(phone);
}

/** Each state, reached the way a visitor reaches it. */
const states: Record<string, (page: Page) => Promise<void>> = {
  'form-empty': (page) => open(page, formPath),
  'form-error': async (page) => {
    await open(page, formPath);
    await fill(page, '96650123');
    await page.getByRole('button', { name: ar.buttonSubmit }).click();
    await page.getByRole('alert').getByText(ar.errorInvalid).waitFor();
  },
  'form-success': async (page) => {
    await open(page, formPath);
    await fill(page, `9665${String(randomInt(0, 100_000_000)).padStart(8, '0')}`);
    await page.getByRole('button', { name: ar.buttonSubmit }).click();
    await page.getByRole('status').getByText(ar.success).waitFor();
  },
  'free-trial': (page) => open(page, '/register/register-client'),
  'link-page': async (page) => {
    await page.addInitScript(() => localStorage.setItem('user', '{"role":"marketing","id":1042}'));
    await open(page, linkPath);
    await page.getByRole('button', { name: ar.buttonCopy }).waitFor();
    // The QR code is drawn on the client, a moment after the rest.
    await page.getByRole('img', { name: ar.altQrCode }).waitFor();
  },
  'not-authorised': async (page) => {
    await open(page, linkPath);
    await page.getByText(ar.errorNotAuthorized).waitFor();
  },
  'not-found': (page) => open(page, '/register/no-such-page'),
};

const dataDir = mkdtempSync(join(tmpdir(), 'tasjeel-screenshots-'));
// `npm run build`'s steps, into a build of this script's own (see playwright.config.ts).
const distDir = resolve('node_modules/.cache/tasjeel-screenshots/dist');
execSync(
  [
    `vite build --logLevel warn --outDir ${distDir}/web`,
    `vite build --logLevel warn --ssr entry-server.tsx --outDir ${distDir}/ssr`,
    `tsx scripts/compress.ts ${distDir}/web`,
    `tsx scripts/build-server.ts ${distDir}/server`,
  ].join(' && '),
  { stdio: 'inherit', env: { ...process.env, VITE_API_BASE_URL: '' } },
);
const server = await startServerProcess({
  entry: `${distDir}/server/main.js`,
  env: {
    DATABASE_URL: `sqlite:${join(dataDir, 'screenshots.db')}`,
    LOG_LEVEL: 'warn',
    DIST_DIR: distDir,
    ...sampleBrandEnv,
    SITE_URL: sampleBrand.siteUrl,
    REDIS_URL: '',
  },
  // Beside the build, so that it outlives the scratch database.
  logFile: resolve(distDir, '..', 'server.log'),
});
const baseURL = server.origin;

try {
  mkdirSync(outDir, { recursive: true });
  const browser = await chromium.launch({
    executablePath,
    args: chromiumArgs,
  });
  try {
    for (const [device, options] of Object.entries(devices)) {
      for (const [state, reach] of Object.entries(states)) {
        const context = await browser.newContext({ ...options, baseURL, locale: 'ar-SA' });
        const page = await context.newPage();
        await reach(page);
        const file = join(outDir, `${device}-${state}.png`);
        await page.screenshot({ path: file, fullPage: true, animations: 'disabled' });
        console.log(`${file}  ${Math.round(statSync(file).size / 1024)} KB`);
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
