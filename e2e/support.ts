import { execFile } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import AxeBuilder from '@axe-core/playwright';
import {
  test as base,
  expect,
  type APIRequestContext,
  type Page,
  type Request,
  type Response,
} from '@playwright/test';
import SqliteDatabase from 'better-sqlite3';
import type { LeadFlag } from '../src/domain/lead-review';
import type { RegistrationsTable } from '../src/server/db/schema';
import type { PersonPut } from '../src/server/people/people';
import { serverNodeArgs } from '../scripts/build-server';
import { e2ePeopleApiKey } from '../testing/marketer-auth';
import { sampleBrand } from '../testing/sample-brand';
import { waitForHydration } from './hydration';

export { expect, waitForHydration };

/** The apiBaseUrl-relative path of the pages' one call (docs/product.md §7). */
export const registerApi = '**/api/external-register';

/** The provider's name the e2e server is started with (playwright.config.ts). */
export const brand = sampleBrand.name;

/** A person's name as people type it (test data, not product copy). */
export const arabicName = 'نورة القحطاني';

/**
 * Every test gets a fresh context; on top of that, any uncaught page error or console error
 * (a hydration mismatch is one) fails the test, and so does a 503 from the server. The
 * browser's own "Failed to load resource" lines are expected where a test fails a request.
 */
export const test = base.extend<{ pageErrors: string[] }>({
  pageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // The server sheds load with a 503 when its event loop lags (@fastify/under-pressure);
      // on a starved machine that breaks a page load, so it is named here rather than left to
      // surface as a time-out somewhere else.
      page.on('response', (response) => {
        if (response.status() === 503) errors.push(`503 (load shed?) for ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
          errors.push(message.text());
        }
      });
      await use(errors);
      expect(errors, 'page errors and console errors').toEqual([]);
    },
    { auto: true },
  ],
});

/**
 * A 9665 number no other test uses: a second sign-up of a phone and notes within 24 hours is
 * stored as a repeat of the first, and both projects run every test against the same database.
 */
export function uniquePhone(): string {
  return `9665${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

/** The same digits as an Arabic keyboard types them (U+0660..U+0669). */
export function arabicIndic(digits: string): string {
  return digits.replace(/\d/g, (digit) => String.fromCharCode(0x0660 + Number(digit)));
}

/**
 * Opens a page of the app and waits until React has hydrated it. A 503 on the way (the page or
 * one of its scripts shed by the server) fails at once: that page would never hydrate.
 */
export async function open(page: Page, path: string) {
  let onShed: (url: string) => void = () => {};
  const shed = new Promise<never>((_resolve, reject) => {
    onShed = (url) => reject(new Error(`the server answered 503 (load shed) for ${url}`));
  });
  // Handled here too, so that a 503 during goto() is not an unhandled rejection meanwhile.
  shed.catch(() => {});
  const watch = (response: Response) => {
    if (response.status() === 503) onShed(response.url());
  };
  page.on('response', watch);
  try {
    const response = await page.goto(path);
    const hydrated = waitForHydration(page);
    hydrated.catch(() => {}); // left waiting when a 503 wins the race
    await Promise.race([hydrated, shed]);
    return response;
  } finally {
    page.off('response', watch);
  }
}

/**
 * Opens a page with the app's scripts held back until `release` is called: the server's HTML
 * alone, as a visitor on a slow phone sees it first. Until then, no page of this tab may be
 * waited for until 'load': the app's script is added once the first paint is reported, which
 * can come before the load event, and a script added by then holds that event back.
 */
export async function openWithoutApp(page: Page, path: string) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/register\/assets\/.*\.js$/, async (route) => {
    await released;
    // The request may belong to a page the browser has left meanwhile.
    await route.continue().catch(() => {});
  });
  await page.goto(path, { waitUntil: 'commit' });
  return release;
}

/**
 * Records every POST to the registration API. `settle()` then proves a negative without a
 * sleep: the browser reports requests in order, so once a later fetch of /api/health has
 * been seen, a POST made before it would have been seen too.
 */
export function recordPosts(page: Page) {
  const posts: Request[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().includes('/api/external-register')) {
      posts.push(request);
    }
  });
  return {
    posts,
    async settle() {
      await Promise.all([
        page.waitForRequest((request) => request.url().endsWith('/api/health')),
        page.evaluate(() => fetch('/api/health').then((response) => response.status)),
      ]);
    },
  };
}

const run = promisify(execFile);

/**
 * Every stored row, read back the way an operator does (`npm run export -- --format jsonl`), with
 * the export of the e2e run's own build: dist/ may be missing, or another version's.
 */
export async function exportRows(): Promise<RegistrationsTable[]> {
  const databasePath = process.env.E2E_DATABASE_PATH;
  const distDir = process.env.E2E_DIST_DIR;
  if (databasePath === undefined || distDir === undefined)
    throw new Error('E2E_DATABASE_PATH and E2E_DIST_DIR are set by playwright.config.ts');
  const exportScript = join(distDir, 'server', 'export.js');
  const { stdout } = await run(
    process.execPath,
    [...serverNodeArgs, exportScript, '--format', 'jsonl'],
    { env: { ...process.env, DATABASE_URL: `sqlite:${databasePath}`, LOG_LEVEL: 'warn' } },
  );
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as RegistrationsTable);
}

/**
 * Flags a lead as the sign-up's checks would (docs/flags.md), written into the e2e server's
 * database beside it, as another process writes there.
 */
export function flagLead(id: string, flag: LeadFlag): void {
  const databasePath = process.env.E2E_DATABASE_PATH;
  if (databasePath === undefined)
    throw new Error('E2E_DATABASE_PATH is set by playwright.config.ts');
  const db = new SqliteDatabase(databasePath, { timeout: 10_000 });
  try {
    db.prepare('insert into lead_flags (registration_id, flag) values (?, ?)').run(id, flag);
  } finally {
    db.close();
  }
}

/** The one stored row for a phone (each sign-up uses its own), failing unless there is one. */
export async function storedRow(phone: string): Promise<RegistrationsTable> {
  const [row] = await storedRows([phone]);
  return row as RegistrationsTable;
}

/** The stored rows for several phones with one export (each starts Node, about 0.4 s). */
export async function storedRows(phones: string[]): Promise<RegistrationsTable[]> {
  const rows = await exportRows();
  return phones.map((phone) => {
    const matching = rows.filter((row) => row.phone === phone);
    expect(matching, `rows stored for ${phone}`).toHaveLength(1);
    return matching[0] as RegistrationsTable;
  });
}

export const wcagTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** Runs axe at WCAG 2.2 AA, prints the result for the CI log and returns the violations. */
export async function axe(page: Page, screen: string, project: string) {
  const results = await new AxeBuilder({ page }).withTags(wcagTags).analyze();
  const incomplete = results.incomplete.map((rule) => rule.id);
  console.log(
    `axe [${project}] ${screen}: ${results.violations.length} violations, ` +
      `${results.passes.length} rules passed, ${results.inapplicable.length} not applicable` +
      (incomplete.length > 0 ? `, to review: ${incomplete.join(', ')}` : ''),
  );
  return results.violations.map((violation) => ({
    id: violation.id,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

/**
 * WCAG 2.x contrast ratio of an element's text against the first opaque background behind it,
 * from the computed colours (rgb/rgba as Chromium reports them). Not axe's color-contrast rule:
 * it takes joined Arabic letters for an icon font's ligature and leaves these lines out
 * (inapplicable, no ratio), so it would pass without checking them.
 */
export async function contrastRatio(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate((element) => {
    const parse = (colour: string) => {
      const match = colour.match(/rgba?\(([^)]+)\)/);
      if (match === null) throw new Error(`cannot read colour ${colour}`);
      const [r = 0, g = 0, b = 0, a = 1] = (match[1] ?? '').split(/[ ,/]+/).map(Number);
      return { r, g, b, a };
    };
    const luminance = ({ r, g, b }: { r: number; g: number; b: number }) => {
      const channel = (value: number) => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    let backgroundElement: Element | null = element;
    let background = { r: 255, g: 255, b: 255, a: 1 };
    while (backgroundElement !== null) {
      const colour = parse(getComputedStyle(backgroundElement).backgroundColor);
      if (colour.a === 1) {
        background = colour;
        break;
      }
      backgroundElement = backgroundElement.parentElement;
    }
    const text = parse(getComputedStyle(element).color);
    const [light, dark] = [luminance(text), luminance(background)].sort((x, y) => y - x) as [
      number,
      number,
    ];
    return (light + 0.05) / (dark + 0.05);
  });
}

/** Puts the programme's people as the provider's platform does (PUT /api/people). */
export async function putPeople(request: APIRequestContext, people: PersonPut[]): Promise<void> {
  const response = await request.put('/api/people', {
    headers: { authorization: `Bearer ${e2ePeopleApiKey}` },
    data: people,
  });
  expect(response.status()).toBe(200);
}
