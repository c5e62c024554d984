import type { Page } from '@playwright/test';

/**
 * Server-rendered markup is in place before React takes it over; typing or submitting before
 * then would reach the browser's plain form handling, not the app. The app marks <html> with
 * data-app-ready once it has hydrated (src/web/app.tsx). Shared by the tests and
 * scripts/screenshots.ts.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator('html[data-app-ready]').waitFor({ state: 'attached' });
}
