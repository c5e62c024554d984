import { createServer as createHttpServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import middie from '@fastify/middie';
import { createServer as createViteServer, type ViteDevServer } from 'vite';
import type { RenderPage } from '../domain/render-contract';
import { buildApp } from './app';
import { loadConfig } from './env';
import { checkTemplate, inlineScriptHashes, type PageSource } from './plugins/pages';
import { fail, serve } from './serve';

// `npm run dev`: the whole server, as main.ts builds it, with Vite in middleware mode in place of
// the build: pages rendered from the sources on each request, hot reload for the browser.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

// Vite answers what it serves (modules, styles, its client): paths whose last segment names a
// file, or that start with '@'. Every other path is a route of the product, answered by the
// renderer as in production, whatever the source files are called.
function isViteRequest(url: string): boolean {
  const segments = (url.split('?')[0] ?? '').split('/');
  return segments.some((segment) => segment.startsWith('@')) || /\./.test(segments.at(-1) ?? '');
}

async function vitePages(vite: ViteDevServer): Promise<PageSource> {
  const templateFile = `${repoRoot}src/web/index.html`;
  const template = checkTemplate(await readFile(templateFile, 'utf8'), templateFile);
  const sample = await vite.transformIndexHtml('/register/', template);
  return {
    scriptHashes: inlineScriptHashes(sample),
    inlineStyles: true,
    async registerFiles(app) {
      await app.register(middie);
      app.use((request, response, next) =>
        isViteRequest(request.url ?? '') ? vite.middlewares(request, response, next) : next(),
      );
    },
    template: (url) => vite.transformIndexHtml(url, template),
    async render(url, options) {
      // Loaded on each request: Vite reloads it when a source file has changed.
      const { render } = (await vite.ssrLoadModule('/entry-server.tsx')) as { render: RenderPage };
      return render(url, options);
    },
  };
}

export async function startDevServer(env: Record<string, string | undefined>) {
  const config = loadConfig({ PORT: '5173', ...env });
  // One port for the pages, the API and Vite's hot-reload socket.
  const server = createHttpServer();
  const vite = await createViteServer({
    configFile: `${repoRoot}vite.config.ts`,
    server: { middlewareMode: true, hmr: { server } },
    appType: 'custom',
  });
  const { app, services } = await buildApp(config, {
    pages: await vitePages(vite),
    serverFactory: (handler) => server.on('request', handler),
  });
  app.addHook('onClose', () => vite.close());
  return { app, services, config };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { app, services, config } = await startDevServer(process.env).catch(fail);
  await serve(app, services, config);
  app.log.info(`pages and API at http://${config.host}:${config.port}/register/register-client`);
}
