// Added to the page by start-app.ts once the server's HTML has been painted.
import './styles.css';
// Before any schema module is evaluated: it configures zod.
import './zod-jitless';
import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

const app = (
  <StrictMode>
    <App location={window.location.pathname} />
  </StrictMode>
);

// Under `vite dev` nothing replaces the <!--app-html--> placeholder, so there is nothing to hydrate.
const serverRendered = Array.from(root.childNodes).some(
  (node) => node.nodeType !== Node.COMMENT_NODE,
);
// As a transition, hydration yields to the browser every few milliseconds instead of holding
// the main thread until the whole page is hydrated (Lighthouse counts that as blocking time).
if (serverRendered) startTransition(() => void hydrateRoot(root, app));
else createRoot(root).render(app);
