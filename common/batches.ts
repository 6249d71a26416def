// Batch bookkeeping shared by the ingest API (creates batches) and the stream (marks listings
// stored). A batch is `completed` once every listing it created is stored; the transition happens
// once, atomically in Redis, and appends a `listings.batch.completed` event to the account's outbox
// stream that webhook delivery reads (never capped: common/webhooks/outbox.ts). Replays are
// harmless: marking an id stored twice changes nothing.
import type { Redis } from 'ioredis';
import { accountStoredAtKey, NOTE_STORED_AT_LUA } from './account-stored-at.ts';
import { redisScript } from './clients/redis-script.ts';
import { accountSpace } from './redis-keys/tags.ts';
import { STALE } from './webhooks/account-index.ts';
import { APPEND_EVENT_LUA, webhookOutbox, webhookOutboxKey } from './webhooks/outbox.ts';

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

// KEYS[1] batch hash, KEYS[2] pending set, KEYS[3] the account's outbox, KEYS[4] the account's
// stored-at key (common/account-stored-at.ts), all under the account's tag; ARGV[1] now ISO,
// ARGV[2] the outbox index stamp ('' on the first call), ARGV[3..] ids.
// Removes stored ids from the pending set. When it is empty and the batch not completed yet: with
// no stamp, answers 2 (the caller touches the outbox index first, then calls again with its stamp:
// common/webhooks/account-index.ts); with a fresh stamp, completes the batch, notes the account's
// stored-at time (Redis's clock, in microseconds: the analytics cache compares it with that clock)
// and appends the event, in this one step; with a stale one, answers 'stale'.
// One SREM per 1,000 ids rather than per id: each write command of a script is a command of its own
// to run and to append to the AOF (0.65-0.75 instead of 1.35-1.40 µs of Redis CPU per id, measured
// with batches of 100); 1,000 stays well under Lua's limit on unpacked values.
const markStoredScript = redisScript(`${NOTE_STORED_AT_LUA}${APPEND_EVENT_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 3, #ARGV, 1000 do redis.call('SREM', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV))) end
if redis.call('SCARD', KEYS[2]) > 0 or redis.call('HGET', KEYS[1], 'status') == 'completed' then return 0 end
if ARGV[2] == '' then return 2 end
local account = redis.call('HGET', KEYS[1], 'account_id')
local event = {'type', 'listings.batch.completed', 'batch_id', redis.call('HGET', KEYS[1], 'batch_id'),
  'account_id', account, 'at', ARGV[1]}
if not append_event(KEYS[3], ARGV[2], event) then return '${STALE}' end
redis.call('HSET', KEYS[1], 'status', 'completed', 'completed_at', ARGV[1])
note_stored_at(KEYS[4])
return 1
`);

/**
 * A batch's keys, under its account's tag (every caller knows the account: the listing messages
 * carry it, and a batch is read by its account's keys): its record (hash), the set of its listing
 * ids not stored yet, and the account's webhook outbox (where its completion is announced).
 */
export function batchKeys(prefix: string, accountId: string, batchId: string) {
  return {
    record: `${accountSpace(prefix, accountId)}batch:${batchId}`,
    pending: `${accountSpace(prefix, accountId)}batch:${batchId}:pending`,
    outbox: webhookOutboxKey(prefix, accountId),
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

export function batchStore(redis: Redis, prefix: string, parts: number) {
  const outbox = webhookOutbox(redis, prefix, parts);

  async function markStoredStep(accountId: string, batchId: string, stamp: string, ids: string[]) {
    const keys = batchKeys(prefix, accountId, batchId);
    return markStoredScript.run(
      redis,
      4,
      keys.record,
      keys.pending,
      keys.outbox,
      accountStoredAtKey(prefix, accountId),
      new Date().toISOString(),
      stamp,
      ...ids,
    );
  }

  return {
    outbox,

    /** Marks listing ids of the account's batch stored; true when this call completed the batch. */
    async markStored(accountId: string, batchId: string, listingIds: string[]): Promise<boolean> {
      const first = await markStoredStep(accountId, batchId, '', listingIds);
      if (first !== 2) return first === 1;
      // Every id is stored: the outbox index first, then completion and event (account-index.ts).
      const result = await outbox.index.produce(accountId, Date.now(), async (stamp) => {
        const reply = await markStoredStep(accountId, batchId, stamp, []);
        return reply === STALE ? STALE : reply;
      });
      return result === 1;
    },

    /** The account's batch (null when unknown, expired, or another account's). */
    async get(accountId: string, batchId: string): Promise<BatchRecord | null> {
      const keys = batchKeys(prefix, accountId, batchId);
      const [fields, pending] = await Promise.all([redis.hgetall(keys.record), redis.scard(keys.pending)]);
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

    /**
     * Account and mode of each batch if it is this account's (null when unknown, expired or
     * another account's), in one round trip (the account's keys share a slot).
     */
    async ownersOf(
      accountId: string,
      batchIds: string[],
    ): Promise<({ account_id: string; is_test: boolean } | null)[]> {
      if (!batchIds.length) return [];
      const pipeline = redis.pipeline();
      for (const id of batchIds)
        pipeline.hmget(batchKeys(prefix, accountId, id).record, 'account_id', 'is_test');
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
