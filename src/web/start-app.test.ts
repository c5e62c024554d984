import { afterEach, describe, expect, it, vi } from 'vitest';
import { ar } from '../domain/catalogue/shared';
import { startApp } from './start-app';

const src = '/register/assets/index-abc123.js';
const shared = '/register/assets/rolldown-runtime-def456.js';

// What start-app.ts adds to the page: the app's module script, once at most.
const appScripts = () =>
  Array.from(document.head.querySelectorAll<HTMLScriptElement>('script[type="module"]'));
const preloads = () =>
  Array.from(document.head.querySelectorAll('link[rel="modulepreload"]'), (link) =>
    link.getAttribute('href'),
  );

// The server's HTML of a form, and of the link page (drawn by the app): the provider's header,
// then the screen.
const header = '<header class="brand">مزود الخدمة</header>';
const formPage = `${header}<main class="page"><h1>تسجيل</h1></main>`;

/** The built page's parts: the inline tag with the app's URL, and #root with the server's HTML. */
function page(serverHtml: string) {
  const tag = document.createElement('script');
  tag.dataset.src = src;
  tag.dataset.preload = shared;
  document.body.innerHTML = `<div id="root">${serverHtml}</div>`;
  startApp(tag);
  document.dispatchEvent(new Event('DOMContentLoaded'));
}

// A browser that reports paints; `paint()` reports the first contentful one.
function stubPaintTiming() {
  let report = () => {};
  let painted = false;
  vi.stubGlobal(
    'PerformanceObserver',
    Object.assign(
      class {
        constructor(callback: () => void) {
          report = callback;
        }
        observe() {}
        disconnect() {
          report = () => {};
        }
      },
      { supportedEntryTypes: ['paint'] },
    ),
  );
  vi.spyOn(performance, 'getEntriesByName').mockImplementation(() =>
    painted ? [{} as PerformanceEntry] : [],
  );
  return () => {
    painted = true;
    report();
  };
}

afterEach(() => {
  vi.useRealTimers();
  document.head.innerHTML = '';
});

describe('starting the app after the first paint', () => {
  it('adds the app only once the server-rendered page is painted', () => {
    vi.useFakeTimers();
    const paint = stubPaintTiming();
    page(formPage);
    vi.runAllTimers();
    expect(appScripts()).toEqual([]);

    expect(preloads()).toEqual([]);

    paint();
    vi.runAllTimers();
    expect(appScripts().map((script) => script.getAttribute('src'))).toEqual([src]);
    expect(preloads()).toEqual([shared]);
    dispatchEvent(new Event('load'));
    vi.runAllTimers();
    expect(appScripts()).toHaveLength(1);
    expect(preloads()).toHaveLength(1);
  });

  it('adds the app at once when the page has nothing to paint before it (the link page)', () => {
    stubPaintTiming();
    page(
      `${header}<main class="page" aria-busy="true"><noscript><p class="card">${ar.errorLinkPageNeedsScript}</p></noscript></main>`,
    );
    expect(appScripts().map((script) => script.getAttribute('src'))).toEqual([src]);
  });

  it('adds the app at once where the browser reports no paints', () => {
    vi.stubGlobal('PerformanceObserver', { supportedEntryTypes: [] });
    page(formPage);
    expect(appScripts()).toHaveLength(1);
  });

  it('adds the app a second after the load event should the paint never be reported', () => {
    vi.useFakeTimers();
    stubPaintTiming();
    page(formPage);
    dispatchEvent(new Event('load'));
    vi.advanceTimersByTime(999);
    expect(appScripts()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(appScripts()).toHaveLength(1);
  });
});
