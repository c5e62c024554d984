import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSince, readDatabase, type Output } from './command';
import { createOutbox } from '../webhooks/outbox';

const usage = `usage: npm run webhooks -- status
       npm run webhooks -- retry-failed
       npm run webhooks -- replay --since YYYY-MM-DD[THH:MM:SSZ]`;

/**
 * `npm run webhooks`: how the outbox stands, and putting events back in it. The server that
 * runs with WEBHOOK_URL delivers what is put back (with each event's own webhook-id), within
 * a second when it is running, or when it next starts.
 */
export async function runWebhooks(
  argv: string[],
  env: Record<string, string | undefined>,
  { out, err }: Output,
  now = () => new Date(),
): Promise<number> {
  let command: string | undefined;
  let since: Date | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { since: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
    [command] = positionals;
    since = parseSince(values.since);
    const known = ['status', 'retry-failed', 'replay'];
    if (positionals.length !== 1 || !known.includes(command ?? '')) {
      throw new Error('expected one command: status, retry-failed or replay');
    }
    if ((command === 'replay') !== (since !== undefined)) {
      throw new Error('--since goes with replay, and replay needs it');
    }
  } catch (error) {
    err(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }

  return readDatabase(env, err, async (database) => {
    const outbox = createOutbox(database);
    if (command === 'status') {
      const status = await outbox.status();
      const oldest =
        status.oldestPendingAt === null
          ? '-'
          : `${Math.round((now().getTime() - Date.parse(status.oldestPendingAt)) / 1000)} s (${status.oldestPendingAt})`;
      out(
        `pending: ${status.pending}\ndelivered: ${status.delivered}\nfailed: ${status.failed}\noldest pending: ${oldest}\n`,
      );
    } else if (command === 'retry-failed') {
      out(`${await outbox.retryFailed(now())} failed events are pending again\n`);
    } else if (since !== undefined) {
      out(
        `${await outbox.replay(since, now())} events from ${since.toISOString()} will be sent again\n`,
      );
    }
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await runWebhooks(process.argv.slice(2), process.env, {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  });
}
