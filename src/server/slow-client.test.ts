import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startServerProcess, type ServerProcess } from '../../testing/server-process';
import { writeFixtureBuild } from '../../testing/server-test-helpers';
import { requestTimeoutMs, shutdownGraceMs, shutdownLimitMs } from './server-limits';

// Finding 11 of the security review (docs/security.md): a client that sends its body one byte
// every 2 s held a socket for 62 s, and turned every shutdown into the forced exit(1).

async function startServer(): Promise<ServerProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'tasjeel-slow-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFixtureBuild(join(dir, 'dist'));
  const server = await startServerProcess({
    entry: 'src/server/main.ts',
    env: {
      DATABASE_URL: `sqlite:${join(dir, 'data', 'registrations.db')}`,
      DIST_DIR: join(dir, 'dist'),
      REDIS_URL: undefined,
      LOG_LEVEL: 'warn',
    },
    logFile: join(dir, 'server.log'),
  });
  onTestFinished(async () => {
    await server.stop();
  });
  return server;
}

/** A sign-up whose body arrives one byte every 2 s; resolves with what the server answered. */
function slowSignUp(port: number): {
  socket: Socket;
  sent: Promise<void>;
  answer: Promise<string>;
} {
  const socket = connect(port, '127.0.0.1');
  // The head has left once the write's callback runs: the server then has a request in flight.
  const sent = new Promise<void>((resolve) =>
    socket.write(
      'POST /api/external-register HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000\r\n\r\n',
      () => resolve(),
    ),
  );
  const drip = setInterval(() => socket.writable && socket.write(' '), 2_000);
  const answer = new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('close', () => {
      clearInterval(drip);
      resolve(text);
    });
    socket.on('error', () => {});
  });
  return { socket, sent, answer };
}

describe('a client sending its body one byte every 2 s', () => {
  it('is answered 408 and cut off at the request time-out', async () => {
    const server = await startServer();
    const started = performance.now();
    const { answer } = slowSignUp(server.port);
    expect(await answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(performance.now() - started).toBeLessThan(requestTimeoutMs + 5_000);
  }, 30_000);

  it('does not hold up a shutdown: the server exits 0 after its grace', async () => {
    const server = await startServer();
    const { sent, answer } = slowSignUp(server.port);
    await sent;
    const stopped = performance.now();
    const exit = await server.stop();
    expect(exit.code).toBe(0);
    expect(exit.at - stopped).toBeLessThan(shutdownLimitMs);
    expect(exit.at - stopped).toBeGreaterThanOrEqual(shutdownGraceMs - 100);
    await answer;
  }, 30_000);
});
