import type { FastifyInstance } from 'fastify';
import { listenForMetrics } from './metrics';
import type { Config } from './env';
import type { Services } from './services';
import { maxConnections, shutdownGraceMs, shutdownLimitMs } from './server-limits';

/** Start-up problems (a bad variable, pages not built) are one clear line, not a stack trace. */
export function fail(error: unknown): never {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

/** Listens, and on SIGTERM or SIGINT finishes the requests in flight before exiting. */
export async function serve(
  app: FastifyInstance,
  { lifecycle, metrics }: Services,
  config: Config,
): Promise<void> {
  let closing = false;
  async function shutDown(signal: NodeJS.Signals) {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing: finishing requests in flight, then the database');
    // /api/ready says 503 first, for READY_DRAIN_MS, so that the balancer stops sending.
    lifecycle.draining = true;
    await new Promise((resolve) => setTimeout(resolve, config.readyDrainMs));
    // A request that never ends must not keep the process alive forever: after a grace for
    // the requests in flight, the connections still open (idle, or a client sending slowly)
    // are closed, and past the limit the process exits anyway.
    setTimeout(() => app.server.closeAllConnections(), shutdownGraceMs).unref();
    setTimeout(() => process.exit(1), shutdownLimitMs).unref();
    await app.close();
    process.exit(0);
  }
  process.on('SIGTERM', shutDown);
  process.on('SIGINT', shutDown);
  app.server.maxConnections = maxConnections;
  await app.listen({ port: config.port, host: config.host }).catch(fail);
  if (metrics !== null && config.metricsPort !== undefined) {
    const { port } = await listenForMetrics(metrics, config.host, config.metricsPort).catch(fail);
    app.log.info({ port }, 'metrics on /metrics');
  }
}
