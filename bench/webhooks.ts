import { fork } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import type { RegistrationPayload } from '../src/domain/registration';
import { freePort } from '../scripts/local-machine';
import { newWebhookSecret, startWebhookReceiver } from '../testing/webhook-receiver';
import { load, signUps, withOurServer, type BenchDatabase } from './api';
import { median } from './lighthouse';
import { ms, row, times, type Row } from './table';

// Issue 12's targets: a lead reaches the provider's endpoint within a second, and delivering
// costs the sign-ups little.
const lagRate = 200;
const lagSeconds = 30;
const maxLagP99 = 1_000;
const minOnOffRatio = 0.9;
const loadSeconds = 10;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The sign-up's id, or undefined when it was refused (shed on a busy machine). */
async function post(origin: string, payload: RegistrationPayload) {
  const response = await fetch(`${origin}/api/external-register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  const body = (await response.json()) as { id?: string };
  return response.status === 201 ? body.id : undefined;
}

type ReceiverMessage = { url: string } | { ids: string[] } | { error: string };

/**
 * A webhook endpoint in its own process (webhook-receiver-process.ts), on `port` (0: any free
 * one). `arrived(count)` waits for that many events and gives the ids of all that arrived.
 */
async function startReceiverProcess(secret: string, port = 0) {
  const child = fork(new URL('./webhook-receiver-process.ts', import.meta.url), [String(port)], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, WEBHOOK_SECRET: secret },
  });
  if (child.pid !== undefined) setPriority(child.pid, 19);
  const next = async () => {
    const [message] = (await once(child, 'message')) as [ReceiverMessage];
    if ('error' in message) throw new Error(message.error);
    return message;
  };
  const started = await next();
  if (!('url' in started)) throw new Error('the receiver did not say where it listens');
  return {
    url: started.url,
    async arrived(count: number): Promise<string[]> {
      child.send(count);
      const message = await next();
      return 'ids' in message ? message.ids : [];
    },
    async close() {
      const exited = once(child, 'exit');
      child.kill();
      await exited;
    },
  };
}

/** The environment of a server with webhooks to `url`, signed with `secret`. */
function webhookEnv(webhook: { url: string; secret: string } | undefined) {
  return {
    WEBHOOK_URL: webhook?.url,
    WEBHOOK_SECRET: webhook?.secret,
    // An endpoint that comes back is tried again within a second.
    WEBHOOK_RETRY_DELAYS: Array(30).fill('1s').join(','),
    // The load is a burst on every link, whose first leads would each get a
    // registration.flagged event more: one event a sign-up, as the counts here expect.
    BURST_LEADS: '1000000',
  };
}

/** The webhook rows of `npm run bench`: lag, throughput on against off, an endpoint down. */
export async function benchWebhooks(
  database: BenchDatabase,
  distDir: string,
  scratch: string,
  log: (line: string) => void,
): Promise<{ rows: Row[]; notes: string[] }> {
  const prefix = `Webhooks ${database.label}`;
  const secret = newWebhookSecret();
  const label = database.label.toLowerCase();

  // 1. The lag from each 201 to its arrival, at a steady 200 sign-ups a second.
  log(`webhooks ${database.label}: lag at ${lagRate}/s for ${lagSeconds} s`);
  const receiver = await startWebhookReceiver(secret);
  const answeredAt = new Map<string, number>();
  let refused = 0;
  const lag = await withOurServer(
    database,
    `webhooks-${label}-lag`,
    distDir,
    scratch,
    webhookEnv({ url: receiver.url, secret }),
    async (server) => {
      const next = signUps();
      const sent: Promise<void>[] = [];
      const started = performance.now();
      for (let n = 0; n < lagRate * lagSeconds; n += 1) {
        const due = started + (n * 1000) / lagRate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sent.push(
          post(server.origin, next()).then((id) => {
            if (id === undefined) refused += 1;
            else answeredAt.set(id, performance.now());
          }),
        );
      }
      await Promise.all(sent);
      await receiver.waitFor(answeredAt.size, 60_000);
      const lags = receiver.received.map(
        (event) => event.at - (answeredAt.get(String(event.data.id)) ?? NaN),
      );
      return {
        lags,
        duplicates: receiver.received.length - new Set(receiver.received.map((e) => e.id)).size,
      };
    },
  );
  await receiver.close();

  // 2. Sign-ups per second under load, webhooks off and on, taking turns.
  const throughput = { off: [] as number[], on: [] as number[] };
  for (const mode of ['off', 'on', 'off', 'on'] as const) {
    log(`webhooks ${database.label}: sign-ups/s with webhooks ${mode}`);
    const endpoint = await startReceiverProcess(secret);
    const result = await withOurServer(
      database,
      `webhooks-${label}-${mode}-${throughput[mode].length}`,
      distDir,
      scratch,
      webhookEnv(mode === 'on' ? { url: endpoint.url, secret } : undefined),
      async (server) => {
        const next = signUps();
        await load(server.origin, 2, next);
        return (await load(server.origin, loadSeconds, next)).result.requests.average;
      },
    );
    throughput[mode].push(result);
    await endpoint.close();
  }
  const off = Math.max(...throughput.off);
  const on = Math.max(...throughput.on);

  // 3. The endpoint down for the whole load, then back: every event delivered once.
  log(`webhooks ${database.label}: endpoint down, then back`);
  const port = await freePort();
  const down = await withOurServer(
    database,
    `webhooks-${label}-down`,
    distDir,
    scratch,
    webhookEnv({ url: `http://127.0.0.1:${port}/hooks`, secret }),
    async (server) => {
      const next = signUps();
      const warmUp = await load(server.origin, 2, next);
      const { result, ids: measured } = await load(server.origin, loadSeconds, next);
      const ids = [...warmUp.ids, ...measured];
      const back = await startReceiverProcess(secret, port);
      const cameBack = performance.now();
      const expected = ids.length;
      try {
        await back.arrived(expected);
        const drainMs = performance.now() - cameBack;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const arrived = await back.arrived(expected);
        const distinct = new Set(arrived);
        return {
          rate: result.requests.average,
          drainMs,
          delivered: arrived.length,
          missing: ids.filter((id) => !distinct.has(id)).length,
        };
      } finally {
        await back.close();
      }
    },
  );

  const { lags, duplicates } = lag;
  const p99 = percentile(lags, 99);
  const downRatio = down.rate / off;
  return {
    rows: [
      row(
        `${prefix}: lag from the 201 to the endpoint, p50 / p99 (${lagRate}/s for ${lagSeconds} s)`,
        `${ms(median(lags))} / ${ms(p99)}`,
        { target: `p99 < ${ms(maxLagP99)}`, met: p99 < maxLagP99 },
      ),
      row(`${prefix}: sign-ups/s with webhooks on (${loadSeconds} s)`, on.toFixed(0), {
        limit: `${off.toFixed(0)} off`,
        ratio: times(on / off),
        target: `≥ ${minOnOffRatio}× off`,
        met: on / off >= minOnOffRatio,
      }),
      row(
        `${prefix}: endpoint down for the run: sign-ups/s; all delivered once back`,
        `${down.rate.toFixed(0)}; ${down.missing} missing, in ${ms(down.drainMs)}`,
        {
          limit: `${off.toFixed(0)} off`,
          ratio: times(downRatio),
          target: `≥ ${minOnOffRatio}× off, 0 missing`,
          met: downRatio >= minOnOffRatio && down.missing === 0,
        },
      ),
    ],
    notes: [
      `${prefix}: ${lags.length} events timed, ${duplicates} delivered twice, ${refused} sign-ups refused during the lag run; sign-ups/s off ${throughput.off.map((r) => r.toFixed(0)).join(', ')}, on ${throughput.on.map((r) => r.toFixed(0)).join(', ')}; endpoint down: ${down.delivered} deliveries once back.`,
    ],
  };
}
