import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { serverNodeArgs } from './scripts/build-server';
import { chromiumArgs, freePort, requireChromium } from './scripts/local-machine';
import { e2eLeadsApiKey, e2eMarketerAuthSecret, e2ePeopleApiKey } from './testing/marketer-auth';
import { sampleBrandEnv } from './testing/sample-brand';
import { buildCommand, testBuildDir } from './testing/server-process';

// Debian's chromium, never a downloaded browser: this machine reaches no browser CDN.
const executablePath = requireChromium();

// Workers load this file again; they must reuse the main process's port and database.
process.env.E2E_PORT ??= String(await freePort());
process.env.E2E_DATABASE_PATH ??= join(mkdtempSync(join(tmpdir(), 'tasjeel-e2e-')), 'e2e.db');
const baseURL = `http://127.0.0.1:${process.env.E2E_PORT}`;

// The e2e run's own build (see buildCommand).
const distDir = testBuildDir;
// The tests read the rows back with this build's export (e2e/support.ts).
process.env.E2E_DIST_DIR = distDir;

const enginesSpec = 'engines.spec.ts';
const engineNames = ['chromium', 'firefox', 'webkit'] as const;

// engineName: the option of e2e/engines.spec.ts.
export default defineConfig<{ engineName: (typeof engineNames)[number] }>({
  testDir: 'e2e',
  fullyParallel: true,
  workers: 2,
  // A whole test's time, not a wait for an event (those keep Playwright's 5 s): the longest go
  // through two page loads and two axe runs, 19-33 s on a 2-core machine busy with the rest of
  // the suite, past the default 30 s.
  timeout: 60_000,
  forbidOnly: Boolean(process.env.CI),
  reporter: 'list',
  use: {
    baseURL,
    locale: 'ar-SA',
    launchOptions: {
      executablePath,
      args: chromiumArgs,
    },
  },
  projects: [
    {
      name: 'phone',
      testIgnore: enginesSpec,
      use: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
    },
    { name: 'desktop', testIgnore: enginesSpec, use: { viewport: { width: 1280, height: 800 } } },
    // The core flows and the phone widths in each engine, each through its own driver.
    ...engineNames.map((engineName) => ({
      name: engineName,
      testMatch: enginesSpec,
      use: { engineName },
      // WebKitGTK's MiniBrowser, driven by WebKitWebDriver under a loaded machine, now and then
      // never finishes the navigation after a click (2 tests in some 150 here, 1 in CI's run of
      // 27, always a different one, none when run alone): its script calls then wait out their
      // time-out. Once more in a fresh MiniBrowser; the report names the test as flaky.
      retries: engineName === 'webkit' ? 1 : 0,
    })),
  ],
  webServer: {
    command: `${buildCommand(distDir)} && node ${serverNodeArgs.join(' ')} ${distDir}/server/main.js`,
    url: `${baseURL}/api/health`,
    timeout: 180_000,
    reuseExistingServer: false,
    env: {
      PORT: process.env.E2E_PORT,
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${process.env.E2E_DATABASE_PATH}`,
      // Every browser test signs up from 127.0.0.1; the limit itself has its own server test.
      RATE_LIMIT_PER_MINUTE: '10000',
      // Two browsers, exports and the runner share 2 cores with the server here, so its event
      // loop lags for reasons no visitor causes; shedding has its own server and load tests.
      LOAD_SHED_DELAY_MS: '0',
      LOG_LEVEL: 'warn',
      DIST_DIR: distDir,
      // A provider with a name, a logo and a licence, so that axe and the layout checks see the
      // whole header; the same-origin API and '/' redirecting to the form.
      ...sampleBrandEnv,
      VITE_API_BASE_URL: '',
      SITE_URL: '',
      REDIS_URL: '',
      // The marketers' numbers on: the link page asks for them (e2e/marketer-stats.spec.ts).
      MARKETER_AUTH_SECRET: e2eMarketerAuthSecret,
      // Every page and poll of the numbers comes from 127.0.0.1: on a loaded machine the tests
      // overlap past 120 a minute (a 429, which the pages show as a load failure). The limit
      // itself has its own server test.
      MARKETER_AUTH_CHECKS_PER_MINUTE: '10000',
      // The CRM's route on: a test makes a lead a client (e2e/marketer-stats.spec.ts).
      LEADS_API_KEY: e2eLeadsApiKey,
      // The platform's people API on: the programme's page names marketers and teams
      // (e2e/program.spec.ts).
      PEOPLE_API_KEY: e2ePeopleApiKey,
    },
  },
});
