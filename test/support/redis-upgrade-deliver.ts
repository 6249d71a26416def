// The stream's webhook side, as this release runs it (stream/webhooks/worker.ts: fan-out, then
// deliveries claimed from the queue and attempted), over a store of the test's own prefix, until
// the receiver has what it expects. Real Redis, real HTTP, real ClickHouse for the attempt log.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { batchStore } from '../../common/batches.ts';
import { outboundEnvSchema, parseEnv } from '../../common/env.ts';
import { createLogger } from '../../common/logger.ts';
import { createOutboundClient, outboundPolicy } from '../../common/outbound/index.ts';
import { webhookDeliveriesTable } from '../../common/warehouse/webhook-deliveries.ts';
import { webhookStore } from '../../common/webhooks/store.ts';
import { createClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { createDeliverer } from '../../stream/webhooks/deliver.ts';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../../stream/webhooks/env.ts';
import { createFanout } from '../../stream/webhooks/fanout.ts';
import { deliveryQueue } from '../../stream/webhooks/queue.ts';
import { env, testClickHouse } from './api.ts';
import type { Receiver } from './webhooks-receiver.ts';

/** Runs fan-out and delivery rounds until `receiver` got `expected` requests; the outcomes. */
export async function deliverWebhooks(redis: Redis, prefix: string, receiver: Receiver, expected: number) {
  const logger = createLogger('warn');
  const webhooks = webhookStore(redis, prefix);
  const batches = batchStore(redis, prefix, env.REDIS_GLOBAL_PARTS);
  const queue = deliveryQueue(redis, prefix, env.REDIS_GLOBAL_PARTS);
  const fanout = createFanout({ redis, prefix, outbox: batches.outbox, webhooks, batches, queue });
  const log = createClickHouseWriter(testClickHouse(), {
    table: webhookDeliveriesTable,
    maxRows: 100,
    maxDelayMs: 100,
    logger,
  });
  const attempt = createDeliverer({
    queue,
    webhooks,
    outbound: createOutboundClient({ policy: outboundPolicy(parseEnv(outboundEnvSchema)), logger }),
    log,
    schedule: DEFAULT_RETRY_SCHEDULE_MS,
    timeoutMs: 5_000,
    workerId: 'upgrade-test',
    logger,
  });
  const outcomes: string[] = [];
  const deadline = Date.now() + 30_000;
  while (receiver.received.length < expected && Date.now() < deadline) {
    const fannedOut = await fanout.poll();
    const { claimed, token } = await queue.claim(10, () => 10);
    for (const delivery of claimed) outcomes.push(await attempt(delivery, token));
    if (fannedOut < 0 && !claimed.length) await sleep(100);
  }
  await log.drain();
  return outcomes;
}
