// Outbox → deliveries. Takes accounts with outbox entries from the outbox index (every part, each
// account leased for LEASE_MS so other workers skip it meanwhile), turns each of their entries into
// one delivery per matching webhook, deletes an entry only after every delivery is enqueued, then
// settles the account in the index (common/webhooks/account-index.ts). Entries of a crashed worker
// are read again when the lease ends; delivery ids derive from (entry id, webhook id), so a re-read
// never duplicates (an existing delivery id is never enqueued again).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { BatchStore } from '../../common/batches.ts';
import { readImageChecks } from '../../common/photos/batch-image-checks.ts';
import { readPhotoSummary } from '../../common/photos/batch-summary.ts';
import type { IndexedAccount } from '../../common/webhooks/account-index.ts';
import type { WebhookOutbox } from '../../common/webhooks/outbox.ts';
import type { WebhookStore, StoredWebhook } from '../../common/webhooks/store.ts';
import { batchCompletedEvent, testEvent, type WebhookEvent } from './events.ts';
import type { DeliveryQueue } from './queue.ts';

/** How long an account's outbox is the worker's that took it (then another may take it over). */
export const OUTBOX_LEASE_MS = 60_000;
/** Accounts taken per part and round. */
const ACCOUNTS_PER_PART = 10;

type Entry = [id: string, fields: string[]];

export interface FanoutDeps {
  redis: Redis;
  prefix: string;
  outbox: WebhookOutbox;
  webhooks: WebhookStore;
  batches: BatchStore;
  queue: DeliveryQueue;
}

export function deliveryId(entryId: string, webhookId: string): string {
  return `msg_${createHash('sha256').update(`${entryId}|${webhookId}`).digest('hex').slice(0, 32)}`;
}

export function createFanout(deps: FanoutDeps) {
  const { redis, outbox } = deps;

  async function eventFor(
    fields: Record<string, string>,
  ): Promise<
    | { event: WebhookEvent; accountId: string; isTest: boolean; onlyWebhook?: string; eventId: string }
    | undefined
  > {
    const at = fields.at ?? new Date().toISOString();
    if (fields.type === 'listings.batch.completed' && fields.batch_id && fields.account_id) {
      const batch = await deps.batches.get(fields.account_id, fields.batch_id);
      if (!batch) return undefined; // expired after 7 days: nothing left to report
      const images = await readImageChecks(redis, deps.prefix, batch.account_id, batch.batch_id);
      const photos = await readPhotoSummary(redis, deps.prefix, batch.account_id, batch.batch_id);
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

  /** Fans out one account's entries (up to `count`); the account is then settled in the index. */
  async function fanOutAccount(taken: IndexedAccount, count: number, now: number): Promise<number> {
    const key = outbox.key(taken.account);
    const entries = (await redis.xrange(key, '-', '+', 'COUNT', count)) as Entry[];
    let enqueued = 0;
    for (const [entryId, flat] of entries) {
      const fields: Record<string, string> = {};
      for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
      // An entry is about the account whose outbox holds it, never another one.
      const found = fields.account_id === taken.account ? await eventFor(fields) : undefined;
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
      // Only now: a crash before leaves the entry to be read again (its deliveries are not doubled).
      await redis.xdel(key, entryId);
    }
    const left = await redis.xlen(key);
    await outbox.index.settle(taken, left > 0 ? now : null, now);
    return enqueued;
  }

  /** One round: the accounts with entries in every part. Returns deliveries enqueued, -1 if idle. */
  async function poll(count = 50): Promise<number> {
    const now = Date.now();
    const accounts = await outbox.index.due(now, ACCOUNTS_PER_PART, now + OUTBOX_LEASE_MS);
    if (!accounts.length) return -1;
    const enqueued = await Promise.all(accounts.map((found) => fanOutAccount(found, count, now)));
    return enqueued.reduce((sum, n) => sum + n, 0);
  }

  return { poll };
}
