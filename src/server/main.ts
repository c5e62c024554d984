import { buildApp } from './app';
import { loadConfig } from './env';

// Start-up problems (a bad variable, pages not built) are one clear line, not a stack trace.
function fail(error: unknown): never {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

const config = (() => {
  try {
    return loadConfig(process.env);
  } catch (error) {
    return fail(error);
  }
})();

const app = await buildApp(config, {
  // Slow or stalled clients are cut off instead of holding sockets open.
  connectionTimeout: 30_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  // Once the event loop lags this far behind, sign-ups are shed (503, Retry-After), not queued.
  maxEventLoopDelay: config.loadShedDelayMs,
}).catch(fail);

let closing = false;
async function shutDown(signal: NodeJS.Signals) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'closing: finishing requests in flight, then the database');
  // A request that never ends must not keep the process alive forever.
  setTimeout(() => process.exit(1), 10_000).unref();
  await app.close();
  process.exit(0);
}
process.on('SIGTERM', shutDown);
process.on('SIGINT', shutDown);

await app.listen({ port: config.port, host: config.host }).catch(fail);
