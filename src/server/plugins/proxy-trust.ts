import fp from 'fastify-plugin';
import type { TrustProxy } from '../env';

/**
 * Says when the client's address is not what it seems: with TRUST_PROXY=true any client picks
 * its own address (and so its own rate-limit key), and X-Forwarded-For arriving while no proxy
 * is trusted means a proxy in front that the configuration does not know of.
 */
export const proxyTrustPlugin = fp<{ trustProxy: TrustProxy }>(
  async (app, { trustProxy }) => {
    if (trustProxy === true) {
      app.log.warn(
        'TRUST_PROXY=true believes any X-Forwarded-For: set the hop count or the proxy addresses',
      );
    }
    if (trustProxy !== false) return;
    let warned = false;
    app.addHook('onRequest', async (request) => {
      if (warned || request.headers['x-forwarded-for'] === undefined) return;
      warned = true;
      request.log.warn(
        'requests carry X-Forwarded-For but TRUST_PROXY is off: every client behind the proxy shares its rate limit',
      );
    });
  },
  { name: 'proxy-trust' },
);
