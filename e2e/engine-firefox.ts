import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { firefoxPath } from '../scripts/local-machine';
import { alertQueue, type Engine, type EnginePage, type PageOptions } from './engine-page';

async function launch(javaScript: boolean): Promise<Browser> {
  if (!existsSync(firefoxPath))
    throw new Error(`No Firefox at ${firefoxPath}: npm test installs it`);
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath,
    headless: true,
    // Firefox has no per-page switch for scripts over WebDriver BiDi: a browser without them.
    extraPrefsFirefox: { 'javascript.enabled': javaScript },
  });
}

/**
 * Debian's Firefox ESR through Puppeteer over WebDriver BiDi (Debian has no geckodriver). One
 * browser a worker for each JavaScript setting, started when first needed; a fresh context,
 * with its own storage, for every page.
 */
export function firefoxEngine(baseURL: string): Engine {
  const browsers = new Map<boolean, Promise<Browser>>();
  return {
    name: 'firefox',
    async open({ width, height, javaScript }: PageOptions): Promise<EnginePage> {
      if (!browsers.has(javaScript)) browsers.set(javaScript, launch(javaScript));
      const browser = await (browsers.get(javaScript) as Promise<Browser>);
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport({ width, height, isMobile: true, hasTouch: true });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(String(error)));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      const alerts = alertQueue();
      page.on('dialog', async (dialog) => {
        alerts.push(dialog.message());
        await dialog.accept();
      });
      return {
        async goto(path) {
          await page.goto(new URL(path, baseURL).href);
        },
        evaluate: (fn, arg) => page.evaluate(fn as (value: unknown) => unknown, arg) as never,
        // By coordinates: with scripts off, Puppeteer's element click() never returns.
        clickAt: (x, y) => page.mouse.click(x, y),
        type: (text) => page.keyboard.type(text),
        async paste() {
          await page.keyboard.down('Control');
          await page.keyboard.press('v');
          await page.keyboard.up('Control');
        },
        nextAlert: () => alerts.next(),
        screenshot: async () => Buffer.from(await page.screenshot()),
        async resize(newWidth, newHeight) {
          await page.setViewport({
            width: newWidth,
            height: newHeight,
            isMobile: true,
            hasTouch: true,
          });
        },
        errors: () => errors,
        close: () => context.close(),
      };
    },
    async stop() {
      for (const browser of browsers.values()) await (await browser).close();
    },
  };
}
