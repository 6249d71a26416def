// Batch bookkeeping shared by the ingest API (creates batches) and the stream (marks listings
// stored). A batch is `completed` once every listing it created is stored; the transition happens
// once, atomically in Redis, and appends a `listings.batch.completed` event to the outbox stream
// that webhook delivery reads (never capped: common/webhooks/outbox.ts). Replays are harmless:
// marking an id stored twice changes nothing.
import type { Redis } from 'ioredis';
import { noteAccountsStored } from './account-stored-at.ts';
import { redisScript } from './clients/redis-script.ts';
import { webhookOutboxKey } from './webhooks/outbox.ts';

export const BATCH_TTL_SECONDS = 7 * 24 * 3600;

export interface BatchRecord {
  batch_id: string;
  account_id: string;
  /** The key that created it ('' for batches recorded before keys were noted). */
  key_id: string;
  is_test: boolean;
  status: 'processing' | 'completed';
  total: number;
  created: number;
  duplicates: number;
  failed: number;
  failed_indexes: number[];
  created_at: string;
  completed_at?: string;
  stored: number;
}

export interface NewBatch {
  batch_id: string;
  account_id: string;
  /** The creating key (it may read the batch whatever its mode); omitted by fixtures. */
  key_id?: string;
  is_test: boolean;
  total: number;
  duplicates: number;
  failed_indexes: number[];
  /** Ids of the listings this batch created (published to Kafka). */
  created_ids: string[];
}

// KEYS[1] batch hash, KEYS[2] pending set, KEYS[3] outbox stream; ARGV[1] now ISO, ARGV[2..] ids.
// Removes stored ids from the pending set; when it empties first, completes the batch and emits.
// Returns the batch's account id once the batch is completed (by this call: {1, account}, before:
// {0, account}), so the caller notes the account's stored-at time (common/account-stored-at.ts,
// under the account's hash tag: not a key of this script).
// One SREM per 1,000 ids rather than per id: each write command of a script is a command of its own
// to run and to append to the AOF (0.65-0.75 instead of 1.35-1.40 µs of Redis CPU per id, measured
// with batches of 100); 1,000 stays well under Lua's limit on unpacked values.
const markStoredScript = redisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {0, false} end
for i = 2, #ARGV, 1000 do redis.call('SREM', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
local account = redis.call('HGET', KEYS[1], 'account_id')
if redis.call('HGET', KEYS[1], 'status') == 'completed' then return {0, account} end
if redis.call('SCARD', KEYS[2]) > 0 then return {0, false} end
redis.call('HSET', KEYS[1], 'status', 'completed', 'completed_at', ARGV[1])
redis.call('XADD', KEYS[3], '*',
  'type', 'listings.batch.completed', 'batch_id', redis.call('HGET', KEYS[1], 'batch_id'),
  'account_id', account, 'at', ARGV[1])
return {1, account}
`);

/** The batch record's hash, the set of its listing ids not stored yet, and the webhook outbox. */
export function batchKeys(prefix: string, batchId: string) {
  return {
    record: `${prefix}batch:${batchId}`,
    pending: `${prefix}batch:${batchId}:pending`,
    outbox: webhookOutboxKey(prefix),
  };
}

/**
 * The record's fields that do not depend on which listings turn out new; ingest/listings/admission.ts
 * adds `created`, `duplicates`, `status` and `completed_at` once its claims have decided them.
 */
export function batchHeaderFields(
  batch: Omit<NewBatch, 'created_ids' | 'duplicates'>,
  createdAt: string,
): Record<string, string> {
  return {
    batch_id: batch.batch_id,
    account_id: batch.account_id,
    key_id: batch.key_id ?? '',
    is_test: batch.is_test ? '1' : '0',
    total: String(batch.total),
    failed: String(batch.failed_indexes.length),
    failed_indexes: JSON.stringify(batch.failed_indexes),
    created_at: createdAt,
  };
}

export function batchStore(redis: Redis, prefix: string) {
  const hashKey = (id: string) => batchKeys(prefix, id).record;
  const pendingKey = (id: string) => batchKeys(prefix, id).pending;
  const outboxKey = webhookOutboxKey(prefix);

  return {
    outboxKey,

    /**
     * Marks listing ids of a batch stored; true when this call completed the batch. Then, once the
     * batch is completed, notes its account's stored-at time: after the completion, and again on
     * every later call (a replay after a crash between the two steps notes it then), since noting
     * again only makes the account's cached answers recompute.
     */
    async markStored(batchId: string, listingIds: string[]): Promise<boolean> {
      const [completedNow, account] = (await markStoredScript.run(
        redis,
        3,
        hashKey(batchId),
        pendingKey(batchId),
        outboxKey,
        new Date().toISOString(),
        ...listingIds,
      )) as [number, string | null];
      if (account) await noteAccountsStored(redis, prefix, [account]);
      return completedNow === 1;
    },

    async get(batchId: string): Promise<BatchRecord | null> {
      const [fields, pending] = await Promise.all([
        redis.hgetall(hashKey(batchId)),
        redis.scard(pendingKey(batchId)),
      ]);
      if (!fields.batch_id) return null;
      const created = Number(fields.created);
      return {
        batch_id: fields.batch_id,
        account_id: fields.account_id!,
        key_id: fields.key_id ?? '',
        is_test: fields.is_test === '1',
        status: fields.status === 'completed' ? 'completed' : 'processing',
        total: Number(fields.total),
        created,
        duplicates: Number(fields.duplicates),
        failed: Number(fields.failed),
        failed_indexes: JSON.parse(fields.failed_indexes ?? '[]') as number[],
        created_at: fields.created_at!,
        ...(fields.completed_at ? { completed_at: fields.completed_at } : {}),
        stored: created - pending,
      };
    },

    /** Account and mode of each batch (null when unknown or expired), in one round trip. */
    async ownersOf(batchIds: string[]): Promise<({ account_id: string; is_test: boolean } | null)[]> {
      if (!batchIds.length) return [];
      const pipeline = redis.pipeline();
      for (const id of batchIds) pipeline.hmget(hashKey(id), 'account_id', 'is_test');
      const replies = (await pipeline.exec()) ?? [];
      return batchIds.map((_, i) => {
        const [error, fields] = replies[i] ?? [];
        const [account, isTest] = (fields as (string | null)[] | undefined) ?? [];
        return !error && account && isTest ? { account_id: account, is_test: isTest === '1' } : null;
      });
    },
  };
}

export type BatchStore = ReturnType<typeof batchStore>;
