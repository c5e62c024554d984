// The endpoint of the webhook throughput rows (bench/webhooks.ts), in a process of its own as a
// CRM's is: in the bench's process it would take its time from the load generator, the bound of
// those runs on 2 cores. Sent a count, it answers once that many events have arrived, with the
// sign-ups' ids of all that arrived.
import { startWebhookReceiver } from '../testing/webhook-receiver';

const receiver = await startWebhookReceiver(
  process.env.WEBHOOK_SECRET ?? '',
  () => 204,
  Number(process.argv[2] ?? 0),
);
process.on('message', (count: number) => {
  const ids = () => receiver.received.map((event) => String(event.data.id));
  receiver.waitFor(count, 120_000).then(
    () => process.send?.({ ids: ids() }),
    (error: Error) => process.send?.({ error: error.message }),
  );
});
process.send?.({ url: receiver.url });
