import { createServer } from 'node:http';
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

const { app, services } = await buildApp(config, {
  // Slow or stalled clients are cut off instead of holding sockets open. Node checks the
  // request time-out only every connectionsCheckingInterval (30 s by default), so a body sent
  // a byte at a time would hold its socket three times as long: checked every second instead.
  // (Given a server, Fastify sets none of its time-outs: all are set here.)
  serverFactory: (handler) =>
    createServer(
      {
        connectionsCheckingInterval: 1_000,
        requestTimeout: requestTimeoutMs,
        keepAliveTimeout: keepAliveTimeoutMs,
      },
      handler,
    ).setTimeout(requestTimeoutMs),
  // Once the event loop lags this far behind, sign-ups are shed (503, Retry-After), not queued.
  maxEventLoopDelay: config.loadShedDelayMs,
}).catch(fail);

await serve(app, services, config);
