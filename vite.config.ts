import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

// The server renders every page, so its entry script is never needed for the first paint
// (entry-client.tsx loads the app after it): fetched at low priority, it leaves a slow mobile
// link to the HTML and CSS first. Vite writes that <script> tag itself, hence a plugin.
const lowPriorityEntryScript: Plugin = {
  name: 'low-priority-entry-script',
  transformIndexHtml: {
    order: 'post',
    handler: (html) =>
      html.replace(/<script type="module"/g, '<script type="module" fetchpriority="low"'),
  },
};

export default defineConfig({
  root: 'src/web',
  base: '/register/',
  envDir: '../..',
  plugins: [react(), lowPriorityEntryScript],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
