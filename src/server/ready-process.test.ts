import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, onTestFinished, vi } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../testing/prometheus-text';
import { freePort, startServerProcess } from '../../testing/server-process';
import { writeFixtureBuild } from '../../testing/server-test-helpers';

// A real server process: the metrics listener and the drain at SIGTERM belong to main.ts.
it('serves /metrics on METRICS_PORT only, and says 503 on /api/ready at SIGTERM before it stops listening', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tasjeel-ready-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFixtureBuild(join(dir, 'dist'));
  const metricsPort = await freePort();
  const server = await startServerProcess({
    entry: 'src/server/main.ts',
    env: {
      DATABASE_URL: `sqlite:${join(dir, 'registrations.db')}`,
      DIST_DIR: join(dir, 'dist'),
      METRICS_PORT: String(metricsPort),
      READY_DRAIN_MS: '1500',
      REDIS_URL: '',
    },
    logFile: join(dir, 'server.log'),
  });
  onTestFinished(async () => {
    await server.stop();
  });
  const get = (path: string, origin = server.origin) =>
    fetch(`${origin}${path}`).then(async (response) => ({
      status: response.status,
      text: await response.text(),
    }));

  expect((await get('/api/ready')).status).toBe(200);
  expect((await get('/metrics')).status).toBe(404);
  const scraped = await get('/metrics', `http://127.0.0.1:${metricsPort}`);
  expect(scraped.status).toBe(200);
  const samples = parsePrometheusText(scraped.text);
  expect(
    sampleValue(samples, 'tasjeel_http_request_duration_seconds_count', { route: '/api/ready' }),
  ).toBe(1);

  server.child.kill('SIGTERM');
  // Draining (READY_DRAIN_MS): not ready, still alive, still listening.
  await vi.waitFor(async () =>
    expect(await get('/api/ready')).toEqual({ status: 503, text: '{"status":"draining"}' }),
  );
  expect((await get('/api/health')).status).toBe(200);
  expect((await server.exited).code).toBe(0);
}, 30_000);
