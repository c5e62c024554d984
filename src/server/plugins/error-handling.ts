import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ar } from '../../domain/catalogue/shared';
import { refusalOf } from '../refusals';

export interface ErrorHandlingOptions {
  /** The database's Database.isUnavailable: out of reach is a 503, on every route. */
  isDatabaseUnavailable: (error: unknown) => boolean;
}

/** Every refusal is JSON with Arabic text from the catalogue (refusals.ts). */
export const errorHandlingPlugin = fp<ErrorHandlingOptions>(
  async (app, { isDatabaseUnavailable }) => {
    app.setErrorHandler<FastifyError>((error, request, reply) => {
      const { status, message } = refusalOf(error, request, isDatabaseUnavailable);
      return reply.code(status).send({ error: message });
    });
    // Other methods on the API routes land here too: 404 rather than 405, one answer for all.
    app.setNotFoundHandler((_request, reply) =>
      reply.code(404).send({ error: ar.errorBadRequest }),
    );
  },
  { name: 'error-handling' },
);

/**
 * HTTP/1.1 requires Host (RFC 9112 §3.2): without it, the Arabic JSON, as for any refusal (an
 * onRequest hook added after the security headers', so that it has them). HTTP/1.0 never had
 * to send one, and old load balancers' health checks do not.
 */
export async function refuseHostless(request: FastifyRequest, reply: FastifyReply) {
  if (request.headers.host !== undefined || request.raw.httpVersion === '1.0') return;
  request.log.info({ status: 400 }, 'request refused: no Host header');
  return reply.code(400).send({ error: ar.errorBadRequest });
}

/**
 * A URL Fastify cannot route (malformed percent-encoding) is refused before any hook runs: the
 * same Arabic JSON and security headers as any refusal, never the URL echoed back.
 */
export function refuseUnroutable(headers: Record<string, string>) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    request.log.info({ code: error.code }, 'request refused');
    for (const [name, value] of Object.entries(headers)) reply.raw.setHeader(name, value);
    void reply.code(400).send({ error: ar.errorBadRequest });
  };
}

/**
 * What Node's HTTP parser refuses (a URL or headers over 16 KB, Content-Length together with
 * Transfer-Encoding, a request that timed out) never reaches Fastify: it is answered on the
 * socket, with the Arabic JSON and the security headers all the same.
 */
export function refuseUnparsable(headers: Record<string, string>) {
  // Fastify calls it bound to the app, for the log.
  return function (this: FastifyInstance, error: Error & { code?: string }, socket: Socket) {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
    this.log.info({ code: error.code, status }, 'request refused by the HTTP parser');
    const body = JSON.stringify({ error: ar.errorBadRequest });
    const lines = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
  };
}
