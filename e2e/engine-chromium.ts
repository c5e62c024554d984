import type { Browser } from '@playwright/test';
import { alertQueue, type Engine, type EnginePage, type PageOptions } from './engine-page';

/** Chromium through Playwright: the browser of the other specs, a phone's touch screen. */
export function chromiumEngine(browser: Browser, baseURL: string): Engine {
  return {
    name: 'chromium',
    async open({ width, height, javaScript }: PageOptions): Promise<EnginePage> {
      const context = await browser.newContext({
        baseURL,
        locale: 'ar-SA',
        viewport: { width, height },
        isMobile: true,
        hasTouch: true,
        javaScriptEnabled: javaScript,
        // Copying writes the clipboard, which headless Chromium allows only with the permission.
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
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
          await page.goto(path);
        },
        // The interface's types are the drivers' own, less their handle types (never used here).
        evaluate: (fn, arg) => page.evaluate(fn as (value: unknown) => unknown, arg) as never,
        clickAt: (x, y) => page.mouse.click(x, y),
        type: (text) => page.keyboard.type(text),
        paste: () => page.keyboard.press('ControlOrMeta+V'),
        nextAlert: () => alerts.next(),
        screenshot: () => page.screenshot(),
        async resize(newWidth, newHeight) {
          await page.setViewportSize({ width: newWidth, height: newHeight });
        },
        errors: () => errors,
        close: () => context.close(),
      };
    },
    // The browser is Playwright's, closed by its runner.
    async stop() {},
  };
}
