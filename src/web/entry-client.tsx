// Added to the page by start-app.ts once the server's HTML has been painted.
import './styles.css';
// Before any schema module is evaluated: it configures zod.
import './zod-jitless';
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app';
import { readBrand } from './brand';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

const app = (
  <StrictMode>
    <App location={window.location.pathname} brand={readBrand()} />
  </StrictMode>
);

// As transitions, hydration and rendering yield to the browser every few milliseconds instead of
// holding the main thread until the whole page is done (Lighthouse counts that as blocking time).
if (root.textContent?.trim()) {
  startTransition(() => void hydrateRoot(root, app));
} else {
  // Nothing to hydrate: the link page's server HTML is an empty placeholder (it needs
  // localStorage), and under `vite dev` nothing replaces the <!--app-html--> slot. Hydrating
  // the placeholder would draw the page in one synchronous re-render once the stored user differs
  // from the server's snapshot.
  const clientRoot = createRoot(root);
  startTransition(() => clientRoot.render(app));
}
