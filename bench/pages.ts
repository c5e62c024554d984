import { join } from 'node:path';
import { startServerProcess } from '../testing/server-process';
import { jsFreePath, writeJsFreePage } from './js-free-page';
import { launchChromium, medianRun, runLighthouse, type LighthouseRun } from './lighthouse';
import { encodings, weighPage, type Kind, type PageWeight } from './page-weight';
import { kb, ms, row, times, type Row } from './table';

interface Screen {
  name: string;
  path: string;
}

const packageForm: Screen = {
  name: 'Package form (marketer)',
  path: '/register/register-client/premium_reco/42',
};
const linkPage: Screen = { name: 'Link page (marketer)', path: '/register/my-registration-link' };
const screens: Screen[] = [
  packageForm,
  { name: 'Free-trial form', path: '/register/register-client' },
  linkPage,
];
const limit: Screen = { name: 'JS-free package form', path: jsFreePath };
const marketer = JSON.stringify({ role: 'marketing', id: '42' });
const runsPerScreen = 3;

// The pages' targets: LCP relative to the JS-free page of the same run, bundle sizes absolute.
const maxLcpRatio = 1.05;
const maxJsGzip = 80_000;
const maxCssGzip = 6_000;

function scores(run: LighthouseRun): string {
  const { performance, accessibility, bestPractices, seo } = run.scores;
  return [performance, accessibility, bestPractices, seo].join(' / ');
}

function metrics(run: LighthouseRun): string {
  return `${ms(run.fcp)} / ${ms(run.lcp)} / ${ms(run.tbt)} / ${run.cls.toFixed(3)}`;
}

function weight(weights: PageWeight, kind: Kind): string {
  return encodings.map((encoding) => kb(weights[kind][encoding])).join(' / ');
}

const kindNames: Record<Exclude<Kind, 'other'>, string> = {
  html: 'HTML',
  js: 'JS',
  css: 'CSS',
  font: 'font',
};

/**
 * Lighthouse on the three screens and on the JS-free limit, interleaved so that a busy moment
 * on the machine falls on all of them alike, then each screen's bytes as served.
 */
export async function benchPages(distDir: string, scratch: string, log: (line: string) => void) {
  await writeJsFreePage(distDir, packageForm.path);
  const server = await startServerProcess({
    entry: join(distDir, 'server', 'main.js'),
    env: {
      DATABASE_URL: `sqlite:${join(scratch, 'pages.db')}`,
      DIST_DIR: distDir,
      LOG_LEVEL: 'info',
    },
    logFile: join(scratch, 'pages-server.log'),
  });
  const runs = new Map<Screen, LighthouseRun[]>([limit, ...screens].map((s) => [s, []]));
  const chromium = await launchChromium().catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  try {
    await chromium.setLocalStorage(server.origin, 'user', marketer);
    for (let i = 1; i <= runsPerScreen; i += 1) {
      for (const [screen, list] of runs) {
        log(`lighthouse ${i}/${runsPerScreen}: ${screen.name}`);
        const url = `${server.origin}${screen.path}`;
        list.push(await runLighthouse(chromium.port, url, { performanceOnly: screen === limit }));
      }
    }
    const medians = new Map([...runs].map(([screen, list]) => [screen, medianRun(list)]));
    const weights = new Map<Screen, PageWeight>();
    for (const [screen, run] of medians) {
      weights.set(screen, await weighPage(server.origin, run.requests));
    }
    const notes = [...medians]
      .filter(([, run]) => run.failing.length > 0)
      .map(
        ([screen, run]) => `${screen.name} lost points in some run on: ${run.failing.join(', ')}`,
      );
    return { rows: pageRows(medians, weights), notes };
  } finally {
    await chromium.close();
    await server.stop();
  }
}

function pageRows(medians: Map<Screen, LighthouseRun>, weights: Map<Screen, PageWeight>): Row[] {
  const rows: Row[] = [];
  const limitRun = medians.get(limit) as LighthouseRun;
  const limitWeight = weights.get(limit) as PageWeight;
  for (const screen of screens) {
    const run = medians.get(screen) as LighthouseRun;
    const pageWeight = weights.get(screen) as PageWeight;
    const isForm = screen === packageForm;
    const { performance, accessibility, bestPractices, seo } = run.scores;
    rows.push(
      row(`${screen.name}: Lighthouse perf / a11y / best pr. / SEO`, scores(run), {
        limit: isForm ? `${limitRun.scores.performance} / – / – / –` : '',
        target: '100 / 100 / 100 / 100',
        met: [performance, accessibility, bestPractices, seo].every((s) => s === 100),
      }),
    );
    const lcpRatio = run.lcp / limitRun.lcp;
    rows.push(
      row(`${screen.name}: FCP / LCP / TBT / CLS`, metrics(run), {
        limit: isForm ? metrics(limitRun) : '',
        ratio: isForm ? `LCP ${times(lcpRatio)}` : '',
        target: isForm ? `LCP ≤ ${maxLcpRatio}× limit; CLS 0` : 'CLS 0',
        met: run.cls === 0 && (!isForm || lcpRatio <= maxLcpRatio),
      }),
    );
    for (const kind of ['html', 'js', 'css', 'font'] as const) {
      const gzip = pageWeight[kind].gzip;
      // The JS budget is the forms'; the link page (a marketer's tool) also loads the QR coder.
      const target =
        kind === 'js' && screen !== linkPage
          ? { target: `≤ ${kb(maxJsGzip)} gzip`, met: gzip <= maxJsGzip }
          : kind === 'css'
            ? { target: `≤ ${kb(maxCssGzip)} gzip`, met: gzip <= maxCssGzip }
            : {};
      rows.push(
        row(`${screen.name}: ${kindNames[kind]} raw / gzip / br`, weight(pageWeight, kind), {
          limit: isForm ? weight(limitWeight, kind) : '',
          ...target,
        }),
      );
    }
  }
  return rows;
}
