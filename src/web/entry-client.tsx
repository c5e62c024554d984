import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app';
import { basename } from './routes';
import './styles.css';

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

const app = (
  <StrictMode>
    <BrowserRouter basename={basename}>
      <App />
    </BrowserRouter>
  </StrictMode>
);

// Under `vite dev` nothing replaces the <!--app-html--> placeholder, so there is nothing to hydrate.
const serverRendered = Array.from(root.childNodes).some(
  (node) => node.nodeType !== Node.COMMENT_NODE,
);
if (serverRendered) hydrateRoot(root, app);
else createRoot(root).render(app);
