import react from '@vitejs/plugin-react';
import { defineConfig, minifySync, type Plugin } from 'vite';
import { startApp } from './src/web/start-app';

const startAppScript = minifySync(
  'start-app.js',
  `(${String(startApp)})(document.currentScript)`,
).code.trim();

// The server renders every page, so no script may be requested before its first paint: Vite's
// module <script> tag for the entry becomes start-app.ts, inline, which adds it after that
// paint, and so do the module preloads of what the entry imports (a chunk shared with a lazy
// one), which would otherwise be fetched at once. The server allows this one inline script in
// its CSP by its hash (src/server/pages.ts).
const inlineEntryScript: Plugin = {
  name: 'inline-entry-script',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler(html) {
      const entryTag = /<script type="module" crossorigin src="([^"]+)"><\/script>/;
      if (!entryTag.test(html)) throw new Error('index.html: no module script tag to replace');
      const preloadTag = /\s*<link rel="modulepreload" crossorigin href="([^"]+)">/g;
      const preloads = Array.from(html.matchAll(preloadTag), ([, href]) => href);
      return html
        .replace(preloadTag, '')
        .replace(
          entryTag,
          (_, src: string) =>
            `<script data-src="${src}" data-preload="${preloads.join(' ')}">${startAppScript}</script>`,
        );
    },
  },
};

export default defineConfig({
  root: 'src/web',
  base: '/register/',
  envDir: '../..',
  plugins: [react(), inlineEntryScript],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
  },
});
