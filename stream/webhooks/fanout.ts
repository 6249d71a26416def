// Outbox → deliveries. Reads `${prefix}outbox` as the consumer group "webhooks" (XREADGROUP), turns
// each entry into one delivery per matching webhook, and XACKs only after every delivery is
// enqueued. Entries of a crashed worker stay pending and are taken over after a minute
// (XAUTOCLAIM); delivery ids derive from (entry id, webhook id), so a re-read never duplicates.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { BatchStore } from '../../common/batches.ts';
import { readImageChecks } from '../../common/photos/batch-image-checks.ts';
import { readPhotoSummary } from '../../common/photos/batch-summary.ts';
import { OUTBOX_GROUP } from '../../common/webhooks/outbox.ts';
import type { WebhookStore, StoredWebhook } from '../../common/webhooks/store.ts';
import { batchCompletedEvent, testEvent, type WebhookEvent } from './events.ts';
import type { DeliveryQueue } from './queue.ts';

export { OUTBOX_GROUP } from '../../common/webhooks/outbox.ts';
const CLAIM_IDLE_MS = 60_000;

type Entry = [id: string, fields: string[] | null];

export interface FanoutDeps {
  redis: Redis;
  prefix: string;
  outboxKey: string;
  consumer: string;
  webhooks: WebhookStore;
  batches: BatchStore;
  queue: DeliveryQueue;
}

export function deliveryId(entryId: string, webhookId: string): string {
  return `msg_${createHash('sha256').update(`${entryId}|${webhookId}`).digest('hex').slice(0, 32)}`;
}

export function createFanout(deps: FanoutDeps) {
  const { redis, outboxKey } = deps;

  async function ensureGroup(): Promise<void> {
    try {
      await redis.xgroup('CREATE', outboxKey, OUTBOX_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
  }

  async function eventFor(
    fields: Record<string, string>,
  ): Promise<
    | { event: WebhookEvent; accountId: string; isTest: boolean; onlyWebhook?: string; eventId: string }
    | undefined
  > {
    const at = fields.at ?? new Date().toISOString();
    if (fields.type === 'listings.batch.completed' && fields.batch_id && fields.account_id) {
      const batch = await deps.batches.get(fields.batch_id);
      if (!batch) return undefined; // expired after 7 days: nothing left to report
      const images = await readImageChecks(redis, deps.prefix, batch.batch_id);
      const photos = await readPhotoSummary(redis, deps.prefix, batch.batch_id);
      return {
        event: batchCompletedEvent(batch, images, at, photos),
        accountId: batch.account_id,
        isTest: batch.is_test,
        eventId: batch.batch_id,
      };
    }
    if (fields.type === 'webhook.test' && fields.webhook_id && fields.account_id) {
      const eventId = fields.event_id ?? fields.webhook_id;
      return {
        event: testEvent(fields.webhook_id, at, eventId),
        accountId: fields.account_id,
        isTest: false,
        onlyWebhook: fields.webhook_id,
        eventId,
      };
    }
    return undefined; // an event type without webhooks
  }

  function matches(webhook: StoredWebhook, type: string, isTest: boolean, at: string, only?: string) {
    if (webhook.status !== 'enabled') return false;
    if (only) return webhook.id === only; // a test event goes to its webhook, whatever the mode
    // Test-mode events only reach test-mode webhooks, live events only live ones; and a webhook
    // only hears of events that happened after it was registered.
    return (
      webhook.mode === (isTest ? 'test' : 'live') &&
      (webhook.events as string[]).includes(type) &&
      webhook.created_at <= at
    );
  }

  async function handle(entries: Entry[]): Promise<number> {
    let enqueued = 0;
    for (const [entryId, flat] of entries) {
      const fields: Record<string, string> = {};
      // A pending entry trimmed from the stream comes back without fields: just acknowledge it.
      for (let i = 0; flat && i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
      const found = await eventFor(fields);
      if (found) {
        const body = JSON.stringify(found.event);
        const webhooks = await deps.webhooks.list(found.accountId);
        const at = found.event.timestamp;
        for (const webhook of webhooks) {
          if (!matches(webhook, found.event.type, found.isTest, at, found.onlyWebhook)) continue;
          const added = await deps.queue.enqueue(
            {
              id: deliveryId(entryId, webhook.id),
              webhook_id: webhook.id,
              account_id: webhook.account_id,
              is_test: webhook.mode === 'test',
              event_type: found.event.type,
              event_id: found.eventId,
              payload: body,
            },
            Date.now(),
          );
          if (added) enqueued++;
        }
      }
      await redis.xack(outboxKey, OUTBOX_GROUP, entryId);
    }
    return enqueued;
  }

  let lastClaim = 0;
  let ownPendingDone = false;

  /** Entries of the outbox for this consumer: '0' = its own pending ones, '>' = never delivered. */
  async function readGroup(from: '0' | '>', count: number): Promise<Entry[]> {
    const reply = (await redis.xreadgroup(
      'GROUP',
      OUTBOX_GROUP,
      deps.consumer,
      'COUNT',
      count,
      'STREAMS',
      outboxKey,
      from,
    )) as [string, Entry[]][] | null;
    return reply?.[0]?.[1] ?? [];
  }

  /** One round: own pending entries first (after a restart), stale ones of others, then new ones. */
  async function poll(count = 50): Promise<number> {
    if (!ownPendingDone) {
      const entries = await readGroup('0', count);
      if (entries.length === 0) ownPendingDone = true;
      return handle(entries);
    }
    if (Date.now() - lastClaim > CLAIM_IDLE_MS / 2) {
      lastClaim = Date.now();
      const claimed = (await redis.xautoclaim(
        outboxKey,
        OUTBOX_GROUP,
        deps.consumer,
        CLAIM_IDLE_MS,
        '0-0',
        'COUNT',
        count,
      )) as [string, Entry[]];
      const entries = claimed[1] ?? [];
      if (entries.length) return handle(entries);
    }
    const entries = await readGroup('>', count);
    return entries.length ? handle(entries) : -1;
  }

  return { ensureGroup, poll };
}
