import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium as playwright } from '@playwright/test';
import lighthouse, { type Result } from 'lighthouse';
import { chromiumArgs, chromiumPath } from '../scripts/local-machine';

const chromeFlags = ['--headless', ...chromiumArgs];

export interface Chromium {
  port: number;
  /** Writes a localStorage item for `origin` into the profile every later tab uses. */
  setLocalStorage(origin: string, key: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * One Debian chromium for every run, with its own profile and a remote-debugging port.
 * Lighthouse resets the HTTP cache and the origin's service workers, cache storage and file
 * systems before each navigation, but by design never localStorage (its clearStorageTypes),
 * so a value written once from another tab of the same profile is there when the page loads.
 */
export async function launchChromium(): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'tasjeel-bench-chromium-'));
  const child = spawn(
    chromiumPath,
    [...chromeFlags, '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(output);
      if (match?.[1] !== undefined) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`chromium exited (${code}): ${output}`)));
  });
  child.stderr.resume();

  return {
    port,
    async setLocalStorage(origin, key, value) {
      // Playwright only as a CDP client: it attaches, writes, and detaches before Lighthouse runs.
      const browser = await playwright.connectOverCDP(`http://127.0.0.1:${port}`);
      const context = browser.contexts()[0];
      if (context === undefined) throw new Error('chromium has no default context');
      const page = await context.newPage();
      // Any same-origin document will do; the health check loads no script.
      await page.goto(`${origin}/api/health`);
      await page.evaluate(([k, v]) => window.localStorage.setItem(k, v), [key, value] as const);
      await page.close();
      await browser.close();
    },
    async close() {
      const exit = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exit;
      await rm(profile, { recursive: true, force: true });
    },
  };
}

export interface LighthouseRun {
  scores: { performance: number; accessibility: number; bestPractices: number; seo: number };
  /** Milliseconds, except CLS. */
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  /** What the page loaded: URL and Lighthouse's resource type. */
  requests: { url: string; resourceType: string }[];
  /** Audits that lost points, for the notes under the table. */
  failing: string[];
}

function score(lhr: Result, id: string): number {
  const value = lhr.categories[id]?.score;
  return value == null ? Number.NaN : Math.round(value * 100);
}

function numeric(lhr: Result, id: string): number {
  return lhr.audits[id]?.numericValue ?? Number.NaN;
}

const allCategories = ['performance', 'accessibility', 'best-practices', 'seo'];

/**
 * One Lighthouse 12 navigation with its defaults: mobile, simulated slow 4G and 4x CPU.
 * `performanceOnly` skips the other categories (the JS-free limit needs its timings only).
 * `noindex`: the page asks search engines not to index it, on purpose (an e-mail's link, whose
 * address is a person's token), so SEO is scored without the audit that asks the opposite.
 */
export async function runLighthouse(
  port: number,
  url: string,
  { performanceOnly = false, noindex = false } = {},
): Promise<LighthouseRun> {
  const result = await lighthouse(url, {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: performanceOnly ? ['performance'] : allCategories,
    // Not scored (weight 0) and slow: the screenshots, and the back/forward cache check,
    // which navigates away and back.
    disableFullPageScreenshot: true,
    skipAudits: [
      'screenshot-thumbnails',
      'final-screenshot',
      'bf-cache',
      ...(noindex ? ['is-crawlable'] : []),
    ],
  });
  if (result === undefined) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { lhr } = result;
  const requests = (lhr.audits['network-requests']?.details as
    { items: { url: string; resourceType?: string }[] } | undefined) ?? { items: [] };
  const failing = lhr.runtimeError ? [lhr.runtimeError.code] : [];
  failing.push(
    ...Object.values(lhr.categories).flatMap((category) =>
      category.auditRefs
        .filter((ref) => ref.weight > 0 && (lhr.audits[ref.id]?.score ?? 1) < 1)
        .map((ref) => `${category.id}: ${ref.id}`),
    ),
  );
  return {
    scores: {
      performance: score(lhr, 'performance'),
      accessibility: score(lhr, 'accessibility'),
      bestPractices: score(lhr, 'best-practices'),
      seo: score(lhr, 'seo'),
    },
    fcp: numeric(lhr, 'first-contentful-paint'),
    lcp: numeric(lhr, 'largest-contentful-paint'),
    tbt: numeric(lhr, 'total-blocking-time'),
    cls: numeric(lhr, 'cumulative-layout-shift'),
    requests: requests.items.map(({ url, resourceType }) => ({
      url,
      resourceType: resourceType ?? 'Other',
    })),
    failing,
  };
}

export function median(values: number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Each figure's own median over the runs (not Lighthouse's "median run" by FCP and TTI). */
export function medianRun(runs: LighthouseRun[]): LighthouseRun {
  const of = (pick: (run: LighthouseRun) => number) => median(runs.map(pick));
  return {
    scores: {
      performance: of((run) => run.scores.performance),
      accessibility: of((run) => run.scores.accessibility),
      bestPractices: of((run) => run.scores.bestPractices),
      seo: of((run) => run.scores.seo),
    },
    fcp: of((run) => run.fcp),
    lcp: of((run) => run.lcp),
    tbt: of((run) => run.tbt),
    cls: of((run) => run.cls),
    // A failed run saw no requests: take them from one that loaded the page.
    requests: runs.find((run) => run.requests.length > 0)?.requests ?? [],
    failing: [...new Set(runs.flatMap((run) => run.failing))],
  };
}
