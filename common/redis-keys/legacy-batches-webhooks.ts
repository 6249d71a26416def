// How `npm run redis:migrate` moves the previous release's keys of batches and webhooks to their
// account's hash tag (registry.ts names these in each family's `legacy`). Each move is idempotent
// and resumable: a key already moved is missing (nothing to do), and the old key is deleted last.
// Keys whose name does not say their account are moved by reading it from their record (a batch's
// and a webhook's hash, a delivery's hash, an outbox entry's fields).
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { STALE, STAMP_FRESH_LUA } from '../webhooks/account-index.ts';
import { outboxIndex, webhookOutboxKey } from '../webhooks/outbox.ts';
import { deliveryQueueKeys, dueIndex } from '../../stream/webhooks/queue.ts';
import { batchKeys } from '../batches.ts';
import { imageCheckSets, imageChecksKey } from '../photos/batch-image-checks.ts';
import { photoSummaryDoneKey, photoSummaryKey } from '../photos/batch-summary.ts';
import { webhookKeys } from '../webhooks/store.ts';

/** Copies a key whole (with its TTL) under a new name, then deletes the old one. */
async function moveWhole(redis: Redis, from: string, to: string): Promise<void> {
  const [dump, ttl] = await Promise.all([redis.dumpBuffer(from), redis.pttl(from)]);
  if (!dump) return;
  await redis.restore(to, ttl > 0 ? ttl : 0, dump, 'REPLACE');
  await redis.del(from);
}

/**
 * Any key of a batch (`batch:<batch>…`): moves the batch's keys, its record last, under its
 * account's tag (read from the record). Without the old record there is nothing to do: the batch
 * moved already, or it expired (a key left beside no record expires within its TTL).
 */
export async function moveBatchKeys(redis: Redis, prefix: string, oldKey: string): Promise<void> {
  const match = /^batch:[^:]+/.exec(oldKey.slice(prefix.length));
  if (!match) return;
  const oldRecord = oldKey.slice(0, prefix.length + match[0].length);
  const batchId = match[0].slice('batch:'.length);
  const account = await redis.hget(oldRecord, 'account_id');
  if (!account) return;
  const batch = batchKeys(prefix, account, batchId);
  const images = imageChecksKey(prefix, account, batchId);
  const photos = photoSummaryKey(prefix, account, batchId);
  const siblings: [string, string][] = [
    [':pending', batch.pending],
    [':images', images],
    [':images:seen', imageCheckSets(images).seenListings],
    [':images:done', imageCheckSets(images).doneImages],
    [':photos', photos],
    [':photos:done', photoSummaryDoneKey(photos)],
  ];
  for (const [suffix, to] of siblings) await moveWhole(redis, oldRecord + suffix, to);
  await moveWhole(redis, oldRecord, batch.record);
}

/** A webhook's hash (`webhook:<webhook>`, its account in `account_id`): moved whole. */
export async function moveWebhook(redis: Redis, prefix: string, oldKey: string): Promise<void> {
  const account = await redis.hget(oldKey, 'account_id');
  const id = oldKey.slice(prefix.length + 'webhook:'.length);
  if (account) await moveWhole(redis, oldKey, webhookKeys(prefix).webhook(account, id));
}

/** A delivery's hash (`webhook:delivery:<delivery>`, its account in `account_id`): moved whole. */
export async function moveDelivery(redis: Redis, prefix: string, oldKey: string): Promise<void> {
  const account = await redis.hget(oldKey, 'account_id');
  const id = oldKey.slice(prefix.length + 'webhook:delivery:'.length);
  if (account) await moveWhole(redis, oldKey, deliveryQueueKeys(prefix).delivery(account, id));
}

/** `webhook:due:<account>`: the due index touched, the set merged into the new one, the index again. */
export async function moveDueSet(redis: Redis, prefix: string, oldKey: string, parts: number): Promise<void> {
  const account = oldKey.slice(prefix.length + 'webhook:due:'.length);
  const flat = await redis.zrange(oldKey, 0, -1, 'WITHSCORES');
  if (!flat.length) return;
  const index = dueIndex(redis, prefix, parts);
  const earliest = Number(flat[1]);
  await index.touch(account, earliest);
  const pairs: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push(flat[i + 1]!, flat[i]!);
  await redis.zadd(deliveryQueueKeys(prefix).due(account), ...pairs);
  await index.touch(account, earliest);
  await redis.del(oldKey);
}

/** The old index of accounts with due deliveries: each account into the new index, then deleted. */
export async function moveDueIndex(
  redis: Redis,
  prefix: string,
  oldKey: string,
  parts: number,
): Promise<void> {
  const index = dueIndex(redis, prefix, parts);
  const flat = await redis.zrange(oldKey, 0, -1, 'WITHSCORES');
  for (let i = 0; i + 1 < flat.length; i += 2) {
    await index.touch(flat[i]!, Number(flat[i + 1]));
    await redis.zrem(oldKey, flat[i]!);
  }
}

/**
 * The old leases (one hash for every account): dropped. A delivery leased when the old release
 * stopped has its due time at the lease's end, so it comes back then, as after a worker's crash.
 */
export async function dropOldLeases(redis: Redis, _prefix: string, oldKey: string): Promise<void> {
  await redis.del(oldKey);
}

// KEYS[1] the account's outbox; ARGV[1] index stamp, ARGV[2] the entry's id, ARGV[3..] fields.
// Keeps the entry's id (its deliveries' ids derive from it, so an entry the old release had
// started fanning out is not delivered twice); an id already there means it was copied before.
// When the account's stream already holds newer entries (the new release ran first), the id
// cannot be kept and the entry gets a new one.
const copyEntryScript = redisScript(`${STAMP_FRESH_LUA}
if #redis.call('XRANGE', KEYS[1], ARGV[2], ARGV[2]) > 0 then return 0 end
if not stamp_fresh(ARGV[1]) then return '${STALE}' end
local fields = {}
for i = 3, #ARGV do fields[#fields + 1] = ARGV[i] end
local added = redis.pcall('XADD', KEYS[1], ARGV[2], unpack(fields))
if type(added) == 'table' and added.err then redis.call('XADD', KEYS[1], '*', unpack(fields)) end
return 1
`);

/**
 * The old outbox (one stream for every account, read by the consumer group `webhooks`): each entry
 * the group has not acknowledged goes to its account's outbox (the outbox index touched first, as
 * every outbox producer does), and is deleted from the old stream after; acknowledged ones only
 * leave. The old stream (and its group) is deleted once empty.
 */
export async function moveOutbox(redis: Redis, prefix: string, oldKey: string, parts: number): Promise<void> {
  const index = outboxIndex(redis, prefix, parts);
  const { lastDelivered, pending } = await oldGroupState(redis, oldKey);
  for (;;) {
    const entries = (await redis.xrange(oldKey, '-', '+', 'COUNT', 500)) as [string, string[]][];
    if (!entries.length) break;
    for (const [id, flat] of entries) {
      const fields = new Map<string, string>();
      for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i]!, flat[i + 1]!);
      const account = fields.get('account_id');
      const done = lastDelivered !== null && compareIds(id, lastDelivered) <= 0 && !pending.has(id);
      if (account && !done) {
        await index.produce(account, Date.now(), async (stamp) => {
          const reply = await copyEntryScript.run(
            redis,
            1,
            webhookOutboxKey(prefix, account),
            stamp,
            id,
            ...flat,
          );
          return reply === STALE ? STALE : reply;
        });
      }
      await redis.xdel(oldKey, id);
    }
  }
  if ((await redis.xlen(oldKey)) === 0) await redis.del(oldKey);
}

/** The old group's last delivered id and its pending (read, not acknowledged) entries. */
async function oldGroupState(redis: Redis, key: string) {
  const pending = new Set<string>();
  let lastDelivered: string | null = null;
  const groups = (await redis.xinfo('GROUPS', key).catch(() => [])) as unknown[][];
  for (const group of groups) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
    if (fields.get('name') !== 'webhooks') continue;
    lastDelivered = String(fields.get('last-delivered-id') ?? '0-0');
    let start = '-';
    for (;;) {
      const page = (await redis.xpending(key, 'webhooks', start, '+', 1000)) as [string, ...unknown[]][];
      for (const [id] of page) pending.add(id);
      if (page.length < 1000) break;
      start = `(${page[page.length - 1]![0]}`;
    }
  }
  return { lastDelivered, pending };
}

function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(BigInt);
  const [bm, bs] = b.split('-').map(BigInt);
  if (am !== bm) return am! < bm! ? -1 : 1;
  return as === bs ? 0 : as! < bs! ? -1 : 1;
}

/** `account:<account>:webhooks` → `{a:<account>}:account:<account>:webhooks` (null: not this family). */
export function renameAccountWebhooks(prefix: string, suffix: string): string | null {
  const match = /^account:(.+):webhooks$/.exec(suffix);
  return match ? webhookKeys(prefix).accountWebhooks(match[1]!) : null;
}
