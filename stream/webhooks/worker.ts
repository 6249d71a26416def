// The webhook side of a stream worker: the outbox fan-out loop and the delivery loop (bounded
// concurrency). Started from stream/main.ts; stop() lets attempts in flight finish.
import type { Platform } from '../../common/platform.ts';
import { batchStore } from '../../common/batches.ts';
import { errorFields, type Logger } from '../../common/logger.ts';
import { webhookDeliveries } from '../../common/metrics/registry.ts';
import type { OutboundEnv } from '../../common/env.ts';
import { createOutboundClient, outboundPolicy } from '../../common/outbound/index.ts';
import { webhookDeliveriesTable } from '../../common/warehouse/webhook-deliveries.ts';
import { webhookStore } from '../../common/webhooks/store.ts';
import { createClickHouseWriter } from '../sink/clickhouse-writer.ts';
import { createDeliverer } from './deliver.ts';
import type { WebhookWorkerEnv } from './env.ts';
import { createFanout } from './fanout.ts';
import { createOutboxWatch } from './outbox-watch.ts';
import { deliveryQueue } from './queue.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const IDLE_POLL_MS = 100;
/** How often the outbox is trimmed and its backlog measured (outbox-watch.ts). */
const OUTBOX_WATCH_MS = 10_000;

export async function startWebhookWorker(
  platform: Platform,
  env: WebhookWorkerEnv & OutboundEnv,
  workerId: string,
  parentLogger: Logger,
) {
  const logger = parentLogger.child({ component: 'webhooks' });
  const parts = webhookParts(platform, env, workerId, logger);
  const running: Running = {
    stopped: false,
    inFlight: new Set(),
    inFlightPer: new Map(),
    // Per account: the worker's slots are shared fairly (queue.ts), WEBHOOK_PER_ACCOUNT_CONCURRENCY each.
    perAccount: Math.min(env.WEBHOOK_PER_ACCOUNT_CONCURRENCY, env.WEBHOOK_CONCURRENCY),
  };
  const fanoutLoop = loop(running, logger, 'outbox fan-out', fanoutRound(parts, env, logger));
  const deliveryLoop = loop(running, logger, 'delivery', () => deliveryRound(running, parts, env, logger));
  logger.info('webhook delivery running', {
    schedule_ms: env.WEBHOOK_RETRY_SCHEDULE_MS,
    per_account: running.perAccount,
  });

  return {
    async stop() {
      running.stopped = true;
      await Promise.all([fanoutLoop, deliveryLoop]);
      await Promise.all(running.inFlight);
      await parts.log.drain();
    },
  };
}

/** The stores, the fan-out, the delivery log and the deliverer the loops use. */
function webhookParts(
  platform: Platform,
  env: WebhookWorkerEnv & OutboundEnv,
  workerId: string,
  logger: Logger,
) {
  const prefix = platform.env.REDIS_KEY_PREFIX;
  const parts = platform.env.REDIS_GLOBAL_PARTS;
  const batches = batchStore(platform.redis, prefix, parts);
  const webhooks = webhookStore(platform.redis, prefix);
  const queue = deliveryQueue(platform.redis, prefix, parts);
  const fanout = createFanout({
    redis: platform.redis,
    prefix,
    outbox: batches.outbox,
    webhooks,
    batches,
    queue,
  });
  const log = createClickHouseWriter(platform.clickhouse, {
    table: webhookDeliveriesTable,
    maxRows: 1_000,
    maxDelayMs: 500,
    logger,
  });
  const attempt = createDeliverer({
    queue,
    webhooks,
    outbound: createOutboundClient({ policy: outboundPolicy(env), logger }),
    log,
    schedule: env.WEBHOOK_RETRY_SCHEDULE_MS,
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    workerId,
    logger,
  });
  return { batches, queue, fanout, log, attempt };
}

type WebhookParts = ReturnType<typeof webhookParts>;

/** The loops' shared state: whether they stop, and the delivery attempts running (in all, per account). */
interface Running {
  stopped: boolean;
  inFlight: Set<Promise<unknown>>;
  inFlightPer: Map<string, number>;
  perAccount: number;
}

/** Runs `step` until stopped; a round that found nothing to do (or failed) is followed by a pause. */
async function loop(running: Running, logger: Logger, name: string, step: () => Promise<boolean>) {
  while (!running.stopped) {
    let busy = false;
    try {
      busy = await step();
    } catch (error) {
      logger.warn(`${name} round failed`, errorFields(error));
      await sleep(1_000);
    }
    if (!busy) await sleep(IDLE_POLL_MS);
  }
}

/** One fan-out round (busy when the outbox gave something), with the outbox watched every OUTBOX_WATCH_MS. */
function fanoutRound(parts: WebhookParts, env: WebhookWorkerEnv, logger: Logger): () => Promise<boolean> {
  const outboxWatch = createOutboxWatch({
    outbox: parts.batches.outbox,
    warnAtBacklog: env.WEBHOOK_OUTBOX_WARN_BACKLOG,
    logger,
  });
  let watchedAt = 0;
  return async () => {
    if (Date.now() - watchedAt >= OUTBOX_WATCH_MS) {
      watchedAt = Date.now();
      await outboxWatch.tick();
    }
    return (await parts.fanout.poll()) >= 0;
  };
}

/** Claims what the free slots allow and starts an attempt for each; busy when something was claimed. */
async function deliveryRound(
  running: Running,
  parts: WebhookParts,
  env: WebhookWorkerEnv,
  logger: Logger,
): Promise<boolean> {
  const { inFlight, inFlightPer, perAccount } = running;
  const room = env.WEBHOOK_CONCURRENCY - inFlight.size;
  if (room <= 0) return false;
  const runningFor = (account: string) => inFlightPer.get(account) ?? 0;
  const { claimed, token } = await parts.queue.claim(
    room,
    (account) => perAccount - runningFor(account),
    runningFor,
  );
  for (const delivery of claimed) {
    inFlightPer.set(delivery.account, runningFor(delivery.account) + 1);
    const task = parts
      .attempt(delivery, token)
      .then((outcome) => webhookDeliveries.inc({ outcome }))
      .catch((error) => {
        webhookDeliveries.inc({ outcome: 'error' });
        logger.warn('delivery attempt failed', { delivery_id: delivery.id, ...errorFields(error) });
      })
      .finally(() => {
        inFlight.delete(task);
        const left = runningFor(delivery.account) - 1;
        if (left > 0) inFlightPer.set(delivery.account, left);
        else inFlightPer.delete(delivery.account);
      });
    inFlight.add(task);
  }
  return claimed.length > 0;
}
