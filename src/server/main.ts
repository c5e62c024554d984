import { buildApp } from './app';
import { loadConfig } from './env';
import { fail, serve } from './serve';
import { keepAliveTimeoutMs, requestTimeoutMs } from './server-limits';

const config = (() => {
  try {
    return loadConfig(process.env);
  } catch (error) {
    return fail(error);
  }
})();

const app = await buildApp(config, {
  // Slow or stalled clients are cut off instead of holding sockets open.
  connectionTimeout: requestTimeoutMs,
  requestTimeout: requestTimeoutMs,
  keepAliveTimeout: keepAliveTimeoutMs,
  // Once the event loop lags this far behind, sign-ups are shed (503, Retry-After), not queued.
  maxEventLoopDelay: config.loadShedDelayMs,
}).catch(fail);

await serve(app, config);
