/**
 * The page's only script tag, inlined into the built index.html by vite.config.ts as a classic
 * script (its text, so it must use nothing from outside this function). The server has rendered
 * the page, and its first paint must not wait for the app: a script requested before that paint
 * counts as a dependency of it, for a slow phone and for Lighthouse's simulation alike.
 * So the app's module script, whose URL the tag carries in data-src, is only added to the page
 * once the browser reports the first contentful paint, with the module preloads of what it
 * imports (data-preload, space-separated), fetched alongside it rather than after it.
 */
export function startApp(tag: HTMLScriptElement) {
  const src = tag.dataset.src ?? '';
  const preloads = (tag.dataset.preload ?? '').split(' ').filter(Boolean);
  let started = false;
  function start() {
    if (started) return;
    started = true;
    for (const href of preloads) {
      const preload = document.createElement('link');
      preload.rel = 'modulepreload';
      preload.href = href;
      document.head.append(preload);
    }
    const app = document.createElement('script');
    app.type = 'module';
    app.src = src;
    document.head.append(app);
  }

  const painted = () => performance.getEntriesByName('first-contentful-paint').length > 0;
  // The tag sits in the head, ahead of the stylesheet (which would hold it back): #root is
  // parsed only by DOMContentLoaded.
  document.addEventListener('DOMContentLoaded', () => {
    // Nothing to paint before the app but the provider's header: the link page, which needs
    // localStorage. Its <noscript> message is raw text to a browser that runs scripts.
    const main = document.querySelector('#root main');
    const painting = Array.from(main?.childNodes ?? []).some(
      (node) => node.nodeName !== 'NOSCRIPT' && node.textContent?.trim(),
    );
    if (!painting || !PerformanceObserver.supportedEntryTypes.includes('paint') || painted()) {
      start();
      return;
    }
    const observer = new PerformanceObserver(() => {
      if (!painted()) return;
      observer.disconnect();
      // The entry comes once the frame is presented; the next task is clear of that paint.
      setTimeout(start);
    });
    observer.observe({ type: 'paint', buffered: true });
    // Should a browser never report the paint, the page still comes to life.
    addEventListener('load', () => setTimeout(start, 1000));
  });
}
