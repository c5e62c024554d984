// `npm run screenshots`: builds the pages into a folder of its own, starts the server from its
// sources (src/server/main.ts through tsx) on a free port with a fresh SQLite file, and saves a PNG of every
// screen and state, on a phone and on a desktop, into docs/screenshots/, then the e-mails'
// (mail-screenshots.ts). The server runs with a
// made-up provider (testing/sample-brand.ts: a name, a logo and a licence), so the pictures show
// the whole header. Chromium is Debian's (or CHROME_PATH).
import { execSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContextOptions, type Page } from '@playwright/test';
import { waitForHydration } from '../e2e/hydration';
import { arForm } from '../src/domain/catalogue/form';
import { arLinkPage } from '../src/domain/catalogue/link-page';
import { arStats } from '../src/domain/catalogue/marketer-stats';
import { arNotifications } from '../src/domain/catalogue/notifications';
import { arProgram, arReview } from '../src/domain/catalogue/program';
import { arProgramMarketer } from '../src/domain/catalogue/program-marketer';
import { ar } from '../src/domain/catalogue/shared';
import type { ProgramStats } from '../src/domain/program-stats';
import { buildPayload } from '../src/domain/registration';
import {
  e2eLeadsApiKey,
  e2eMarketerAuthSecret,
  e2ePeopleApiKey,
  marketerToken,
} from '../testing/marketer-auth';
import { sampleBrand, sampleBrandEnv } from '../testing/sample-brand';
import { startServerProcess } from '../testing/server-process';
import { chromiumArgs, requireChromium } from './local-machine';
import { takeMailScreenshots } from './mail-screenshots';

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
  await page.getByRole('textbox', { name: arForm.fieldName }).fill(visitorName);
  await page.getByRole('textbox', { name: arForm.fieldEmail }).fill('noura@example.com');
  await page.getByRole('textbox', { name: arForm.fieldPhone }).fill(phone);
}

/** Each state, reached the way a visitor reaches it. */
const states: Record<string, (page: Page) => Promise<void>> = {
  'form-empty': (page) => open(page, formPath),
  'form-error': async (page) => {
    await open(page, formPath);
    await fill(page, '96650123');
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    await page.getByRole('alert').getByText(arForm.errorInvalid).waitFor();
  },
  'form-success': async (page) => {
    await open(page, formPath);
    await fill(page, `9665${String(randomInt(0, 100_000_000)).padStart(8, '0')}`);
    await page.getByRole('button', { name: arForm.buttonSubmit }).click();
    await page.getByRole('status').getByText(arForm.success).waitFor();
  },
  'free-trial': (page) => open(page, '/register/register-client'),
  'link-page': async (page) => {
    await page.addInitScript(() => localStorage.setItem('user', '{"role":"marketing","id":1042}'));
    await open(page, linkPath);
    await page.getByRole('button', { name: arLinkPage.buttonCopy }).waitFor();
    // The QR code is drawn on the client, a moment after the rest.
    await page.getByRole('img', { name: arLinkPage.altQrCode }).waitFor();
  },
  'link-stats': async (page) => {
    const token = await marketerToken('1042');
    await page.addInitScript((stored) => {
      localStorage.setItem('user', '{"role":"marketing","id":1042}');
      localStorage.setItem('token', stored);
    }, token);
    await open(page, linkPath);
    await page.getByRole('heading', { name: arStats.heading }).waitFor();
    await page.getByRole('table', { name: arStats.statsByPackage }).waitFor();
  },
  program: async (page) => {
    const token = await marketerToken('manager-1', 'admin');
    await page.addInitScript((stored) => localStorage.setItem('token', stored), token);
    await open(page, '/register/program');
    await page.getByRole('table', { name: arProgram.byMarketer }).waitFor();
    await page.getByRole('heading', { name: arReview.decidedHeading }).waitFor();
  },
  'program-marketer': async (page) => {
    const token = await marketerToken('manager-1', 'admin');
    await page.addInitScript((stored) => localStorage.setItem('token', stored), token);
    await open(page, '/register/program/marketers/1042');
    await page.getByRole('table', { name: arStats.statsByPackage }).waitFor();
    await page.getByRole('heading', { name: arProgramMarketer.outcomes }).waitFor();
  },
  // An e-mail's links as they open (a GET: the button, nothing done yet).
  'mail-confirm': async (page) => {
    await open(page, '/register/notifications/confirm/screenshot-token');
    await page.getByRole('button', { name: arNotifications.confirmButton }).waitFor();
  },
  'mail-stop': async (page) => {
    await open(page, '/register/notifications/stop/weekly/screenshot-token');
    await page.getByRole('button', { name: arNotifications.stop.weekly.button }).waitFor();
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
    MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
    LEADS_API_KEY: e2eLeadsApiKey,
    PEOPLE_API_KEY: e2ePeopleApiKey,
    RATE_LIMIT_PER_MINUTE: '100000',
  },
  // Beside the build, so that it outlives the scratch database.
  logFile: resolve(distDir, '..', 'server.log'),
});
const baseURL = server.origin;

/**
 * Made-up marketers' visits and leads, some of them clients, for the link page's numbers and
 * the programme's page: marketer 1042 (the link page's) and four others, through campaigns.
 */
async function seed() {
  const marketers = [
    { id: '1042', visitors: 9, leads: 6, clients: 2, campaign: 'ramadan' },
    { id: '1043', visitors: 7, leads: 4, clients: 1, campaign: 'ramadan' },
    { id: '1077', visitors: 8, leads: 3, clients: 2, campaign: 'snapchat-nov' },
    { id: '2001', visitors: 5, leads: 2, clients: 0, campaign: 'whatsapp-group' },
    { id: '2015', visitors: 3, leads: 1, clients: 0, campaign: 'whatsapp-group' },
  ];
  // The directory, as the provider's platform puts it: names, and two teams.
  const people = await fetch(`${baseURL}/api/people`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${e2ePeopleApiKey}` },
    body: JSON.stringify([
      { marketing_id: '1007', name: 'خالد العتيبي' },
      { marketing_id: '1042', name: 'سارة القحطاني', team_leader_id: '1007' },
      { marketing_id: '1043', name: 'فهد الدوسري', team_leader_id: '1007' },
      { marketing_id: '1077', name: 'نورة الشهري', team_leader_id: '2000' },
      { marketing_id: '2000', name: 'ريم الزهراني' },
      { marketing_id: '2001', name: 'عبدالله الحربي', team_leader_id: '2000' },
    ]),
  });
  if (!people.ok) throw new Error(`PUT /api/people answered ${people.status}`);
  let phone = 0;
  const signUp = async (payload: ReturnType<typeof buildPayload>) => {
    const stored = await fetch(`${baseURL}/api/external-register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    return ((await stored.json()) as { id: string }).id;
  };
  for (const { id, visitors, leads, clients, campaign } of marketers) {
    const query = new URLSearchParams({ utm_source: 'ads', utm_campaign: campaign });
    for (let i = 0; i < visitors; i++) {
      await fetch(`${baseURL}/register/register-client/premium_reco/${id}?${query}`, {
        headers: { 'user-agent': `Mozilla/5.0 (Linux; Android 14; visitor ${i}) Mobile` },
      });
    }
    for (let i = 0; i < leads; i++) {
      const payload = buildPayload(
        { name: visitorName, email: '', phone: `96650${String(++phone).padStart(7, '0')}` },
        { packageName: i % 2 === 0 ? 'premium_reco' : 'classic_portfolio', marketingId: id },
        { utm_source: 'ads', utm_campaign: campaign },
      );
      const lead = await signUp(payload);
      if (i >= clients) continue;
      await fetch(`${baseURL}/api/leads/${lead}/status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${e2eLeadsApiKey}` },
        body: JSON.stringify({ status: 'client' }),
      });
    }
  }
  // For the review list: marketer 1042's first lead's phone again through 2001's link, for the
  // free trial (contested), and a decision on it.
  const authorization = `Bearer ${await marketerToken('manager-1', 'admin')}`;
  const contested = await signUp(
    buildPayload({ name: visitorName, email: '', phone: '966500000001' }, { marketingId: '2001' }),
  );
  await fetch(`${baseURL}/api/program/leads/${contested}/review`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ credited: false, note: 'سجل عبر رابط 1042 قبل يومين' }),
  });
  // Visits are written once a second: wait until the programme's numbers have them all.
  const visitors = marketers.reduce((sum, marketer) => sum + marketer.visitors, 0);
  for (;;) {
    const answer = await fetch(`${baseURL}/api/program/stats?days=1`, {
      headers: { authorization },
    });
    const { totals } = (await answer.json()) as ProgramStats;
    if (totals.visits >= visitors) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

try {
  await seed();
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
    await takeMailScreenshots(browser, outDir);
  } finally {
    await browser.close();
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
