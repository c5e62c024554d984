import type { Page } from '@playwright/test';

/**
 * Server-rendered markup is in place before React takes it over; typing or submitting before
 * then would reach the browser's plain form handling, not the app. React 19 marks its root
 * fiber isDehydrated until hydration commits: an internal, read here only to wait on it.
 * Shared by the tests and scripts/screenshots.ts.
 */
export async function waitForHydration(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const root = document.getElementById('root');
    if (root === null) return false;
    const key = Object.keys(root).find((name) => name.startsWith('__reactContainer$'));
    if (key === undefined) return false;
    const fiber = (root as unknown as Record<string, { stateNode?: { current?: unknown } }>)[key];
    const current = fiber?.stateNode?.current as
      { memoizedState?: { isDehydrated?: boolean } } | undefined;
    return current?.memoizedState?.isDehydrated === false;
  });
}
