import './styles.css';

// The server has rendered the page, and its first paint must not wait for React: a deferred
// script runs before that paint whenever it arrives early (a fast network, a slow phone). So
// this entry, a few hundred bytes, starts loading the app only once the browser reports the
// first contentful paint; on a slow network the HTML and CSS have the link to themselves.
let started = false;
function start() {
  if (started) return;
  started = true;
  void import('./hydrate-app');
}

const root = document.getElementById('root');
const painted = () => performance.getEntriesByName('first-contentful-paint').length > 0;
if (
  // Nothing to paint before React: `vite dev`, or the link page, which needs localStorage.
  !root?.textContent?.trim() ||
  !PerformanceObserver.supportedEntryTypes.includes('paint') ||
  painted()
) {
  start();
} else {
  const observer = new PerformanceObserver(() => {
    if (!painted()) return;
    observer.disconnect();
    // The entry comes once the frame is presented; the next task is clear of that paint.
    setTimeout(start);
  });
  observer.observe({ type: 'paint', buffered: true });
  // Should a browser never report the paint, the page still comes to life.
  addEventListener('load', () => setTimeout(start, 1000));
}
