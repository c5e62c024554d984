import { join } from 'node:path';
import { buildPayload } from '../src/domain/registration';
import { e2eLeadsApiKey, e2eMarketerAuthSecret, marketerToken } from '../testing/marketer-auth';
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
const programPage: Screen = { name: "Programme's page (admin)", path: '/register/program' };
// An e-mail's links, opened as a mail scanner or the person does (a GET: the button, nothing
// done); a token the server does not know draws the same page.
const confirmPage: Screen = {
  name: 'E-mail confirmation page',
  path: '/register/notifications/confirm/bench-token',
};
const stopPage: Screen = {
  name: 'E-mail unsubscribe page',
  path: '/register/notifications/stop/weekly/bench-token',
};
const screens: Screen[] = [
  packageForm,
  { name: 'Free-trial form', path: '/register/register-client' },
  linkPage,
  programPage,
  confirmPage,
  stopPage,
];
// Asked not to be indexed (head.ts): their address is a person's token.
const noindex = [confirmPage, stopPage];
// The marketers' tools are not held to the forms' JavaScript budget.
const tools = [linkPage, programPage];
const limit: Screen = { name: 'JS-free package form', path: jsFreePath };
const marketer = JSON.stringify({ role: 'marketing', id: '42' });
const runsPerScreen = 3;

// The pages' targets: LCP relative to the JS-free page of the same run, bundle sizes absolute.
// The forms' JavaScript is what they load before the first input, gzipped at zlib's level 9.
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
 * Lighthouse on the screens and on the JS-free limit, interleaved so that a busy moment
 * on the machine falls on all of them alike, then each screen's bytes as served.
 */
export async function benchPages(distDir: string, scratch: string, log: (line: string) => void) {
  await writeJsFreePage(distDir, packageForm.path);
  const start = (name: string, env: Record<string, string> = {}) =>
    startServerProcess({
      entry: join(distDir, 'server', 'main.js'),
      env: {
        DATABASE_URL: `sqlite:${join(scratch, `${name}.db`)}`,
        DIST_DIR: distDir,
        LOG_LEVEL: 'info',
        ...env,
      },
      logFile: join(scratch, `${name}-server.log`),
    });
  const server = await start('pages');
  // The programme's page on a server of its own, with an admin's token and leads the CRM made
  // clients: on the other's origin the link page would ask for its marketer's numbers too.
  const programServer = await start('program', {
    MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
    LEADS_API_KEY: e2eLeadsApiKey,
  }).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  const originOf = (screen: Screen) =>
    screen === programPage ? programServer.origin : server.origin;
  const runs = new Map<Screen, LighthouseRun[]>([limit, ...screens].map((s) => [s, []]));
  const chromium = await launchChromium().catch(async (error: unknown) => {
    await Promise.all([server.stop(), programServer.stop()]);
    throw error;
  });
  try {
    await chromium.setLocalStorage(server.origin, 'user', marketer);
    await chromium.setLocalStorage(
      programServer.origin,
      'token',
      await marketerToken('bench-admin', 'admin', { exp: Math.floor(Date.now() / 1000) + 86400 }),
    );
    await signUps(programServer.origin);
    for (let i = 1; i <= runsPerScreen; i += 1) {
      for (const [screen, list] of runs) {
        log(`lighthouse ${i}/${runsPerScreen}: ${screen.name}`);
        const url = `${originOf(screen)}${screen.path}`;
        list.push(
          await runLighthouse(chromium.port, url, {
            performanceOnly: screen === limit,
            noindex: noindex.includes(screen),
          }),
        );
      }
    }
    const medians = new Map([...runs].map(([screen, list]) => [screen, medianRun(list)]));
    const weights = new Map<Screen, PageWeight>();
    for (const [screen, run] of medians) {
      weights.set(screen, await weighPage(originOf(screen), run.requests));
    }
    const notes = [...medians]
      .filter(([, run]) => run.failing.length > 0)
      .map(
        ([screen, run]) => `${screen.name} lost points in some run on: ${run.failing.join(', ')}`,
      );
    return { rows: pageRows(medians, weights), notes };
  } finally {
    await chromium.close();
    await Promise.all([server.stop(), programServer.stop()]);
  }
}

/**
 * A few marketers' visits and leads, some of them clients, so that the programme's page shows
 * its totals, chart and tables, as a provider's would.
 */
async function signUps(origin: string) {
  let phone = 0;
  for (const [marketingId, leads, clients] of [
    ['17', 5, 2],
    ['23', 3, 1],
    ['31', 1, 0],
  ] as const) {
    await fetch(`${origin}/register/marketer/${marketingId}`);
    for (let lead = 0; lead < leads; lead += 1) {
      phone += 1;
      const answer = await fetch(`${origin}/api/external-register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          buildPayload(
            { name: 'مشترك', email: '', phone: `96655${String(phone).padStart(7, '0')}` },
            { marketingId },
            { utm_source: 'whatsapp', utm_campaign: 'launch' },
          ),
        ),
      });
      if (answer.status !== 201) throw new Error(`sign-up answered ${answer.status}`);
      if (lead >= clients) continue;
      const { id } = (await answer.json()) as { id: string };
      const changed = await fetch(`${origin}/api/leads/${id}/status`, {
        method: 'POST',
        headers: { authorization: `Bearer ${e2eLeadsApiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'client' }),
      });
      if (changed.status !== 200) throw new Error(`status change answered ${changed.status}`);
    }
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
      const target =
        kind === 'css' ? { target: `≤ ${kb(maxCssGzip)} gzip`, met: gzip <= maxCssGzip } : {};
      rows.push(
        row(`${screen.name}: ${kindNames[kind]} raw / gzip / br`, weight(pageWeight, kind), {
          limit: isForm ? weight(limitWeight, kind) : '',
          ...target,
        }),
      );
    }
    // The JS budget is the forms'; the link page (a marketer's tool) also loads the QR coder.
    if (!tools.includes(screen)) {
      const level9 = pageWeight.js.level9;
      rows.push(
        row(`${screen.name}: JS gzip -9 (the budget's measure)`, kb(level9), {
          target: `≤ ${kb(maxJsGzip)}`,
          met: level9 <= maxJsGzip,
        }),
      );
    }
  }
  return rows;
}
