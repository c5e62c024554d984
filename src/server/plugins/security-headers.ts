import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import helmet from 'helmet';

export interface SecurityHeadersOptions {
  /** The CSP sources of the page template's inline scripts ('sha256-…'). */
  scriptHashes: string[];
  /** Allows inline styles: only Vite's development client needs them. */
  inlineStyles: boolean;
  /** Another origin the pages may call (the API's, when VITE_API_BASE_URL names one). */
  apiOrigin: string | undefined;
}

/**
 * The headers every answer carries, refusals before routing included. Helmet's are the same for
 * every request, so they are worked out once: @fastify/helmet runs helmet anew on every request,
 * parsing the CSP each time (a fifth of the API's throughput, docs/performance.md).
 */
export function securityHeaders({
  scriptHashes,
  inlineStyles,
  apiOrigin,
}: SecurityHeadersOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => delete headers[name.toLowerCase()],
  };
  helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        // The inline script that starts the app, by hash: never 'unsafe-inline'.
        scriptSrc: ["'self'", ...scriptHashes],
        styleSrc: inlineStyles ? ["'self'", "'unsafe-inline'"] : ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: apiOrigin === undefined ? ["'self'"] : ["'self'", apiOrigin],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
    },
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    // The same as frame-ancestors 'none', for browsers that only know X-Frame-Options.
    frameguard: { action: 'deny' },
    // Sent per request, and only over HTTPS (below): over plain HTTP a browser ignores it.
    strictTransportSecurity: false,
  })({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  // The pages use none of these; a script that found its way in could not either.
  headers['permissions-policy'] = 'camera=(), microphone=(), geolocation=(), payment=()';
  return headers;
}

export interface SecurityHeadersPluginOptions {
  headers: Record<string, string>;
  /** HSTS covers the subdomains too: only when every one of them serves HTTPS. */
  hstsIncludeSubDomains: boolean;
}

export const securityHeadersPlugin = fp<SecurityHeadersPluginOptions>(
  async (app, { headers, hstsIncludeSubDomains }) => {
    const entries = Object.entries(headers);
    const hsts = `max-age=31536000${hstsIncludeSubDomains ? '; includeSubDomains' : ''}`;
    // On the raw response, as helmet does: answers sent past Fastify's reply carry them too.
    app.addHook('onRequest', async (request, reply) => {
      for (const [name, value] of entries) reply.raw.setHeader(name, value);
      if (request.protocol === 'https') reply.raw.setHeader('strict-transport-security', hsts);
    });
  },
  { name: 'security-headers' },
);
