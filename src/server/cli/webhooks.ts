import { defineCommand, parseSince } from './command';
import { createOutbox } from '../webhooks/outbox';

/**
 * `npm run webhooks`: how the outbox stands, and putting events back in it. The server that
 * runs with WEBHOOK_URL delivers what is put back (with each event's own webhook-id), within
 * a second when it is running, or when it next starts.
 */
export const webhooksCommand = defineCommand({
  name: 'webhooks',
  summary: 'the webhook outbox: how it stands, and its events put back to be sent again',
  usage: ['status', 'retry-failed', 'replay --since YYYY-MM-DD[THH:MM:SSZ]'],
  options: { since: { type: 'string' } },
  positionals: true,
  parse(values, positionals) {
    const command = positionals.length === 1 ? positionals[0] : undefined;
    const since = parseSince(values.since);
    if (command !== 'status' && command !== 'retry-failed' && command !== 'replay') {
      throw new Error('expected one command: status, retry-failed or replay');
    }
    if ((command === 'replay') !== (since !== undefined)) {
      throw new Error('--since goes with replay, and replay needs it');
    }
    return { command, since };
  },
  async run(database, { command, since }, { out }) {
    const outbox = createOutbox(database);
    const now = new Date();
    if (command === 'status') {
      const status = await outbox.status();
      const oldest =
        status.oldestPendingAt === null
          ? '-'
          : `${Math.round((now.getTime() - Date.parse(status.oldestPendingAt)) / 1000)} s (${status.oldestPendingAt})`;
      out(
        `pending: ${status.pending}\ndelivered: ${status.delivered}\nfailed: ${status.failed}\noldest pending: ${oldest}\n`,
      );
    } else if (command === 'retry-failed') {
      out(`${await outbox.retryFailed(now)} failed events are pending again\n`);
    } else if (since !== undefined) {
      out(
        `${await outbox.replay(since, now)} events from ${since.toISOString()} will be sent again\n`,
      );
    }
    return 0;
  },
});
