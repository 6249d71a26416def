// What points to a key's record (key-store.ts): its account's key and admin sets, the key index and
// the id → hash lookup; and the record's own write. Each function takes the store's context.
import type { Redis } from 'ioredis';
import { REVOKED_KEPT_DAYS } from './key-changes.ts';
import { storedFields, type ApiKeyRecord } from './key-record.ts';
import type { KeyStoreContext } from './key-store.ts';
import { assertOneSlot } from '../redis-keys/slot.ts';
import { partOf } from '../redis-keys/tags.ts';

/**
 * Writes what points to a new key before its record exists: the account's key set (and admin
 * set; `replacing` leaves it, for a roll), the key index and the id → hash lookup. They are in
 * different slots, so these are separate commands; the record is written after all of them
 * (`writeRecord`), so a key never authenticates before its account membership and index entries
 * exist. A process that dies in between leaves ids without a record, which every reader skips.
 */
export async function addPointers(
  { redis, parts, keys: k }: KeyStoreContext,
  record: ApiKeyRecord,
  hash: string,
  account: { created?: string; newAccount?: boolean; replacing?: string },
) {
  const accountKeys = [
    k.account(record.account_id),
    k.accountKeys(record.account_id),
    k.accountAdmins(record.account_id),
  ];
  assertOneSlot(accountKeys, 'adding a key to its account');
  const multi = redis.multi().sadd(k.accountKeys(record.account_id), record.id);
  if (account.created) {
    multi
      .hsetnx(k.account(record.account_id), 'id', record.account_id)
      .hsetnx(k.account(record.account_id), 'created_at', account.created);
  }
  // A new account's admin set is complete from its first key: revoking never has to index it.
  if (account.newAccount) multi.hset(k.account(record.account_id), 'admins_indexed', '1');
  if (record.role === 'admin') multi.sadd(k.accountAdmins(record.account_id), record.id);
  if (account.replacing) multi.srem(k.accountAdmins(record.account_id), account.replacing);
  await Promise.all([
    execOrThrow(multi),
    redis.zadd(k.index(partOf(record.id, parts)), Date.parse(record.created_at), record.id),
    redis.set(k.hashById(record.id), hash),
  ]);
}

/** Undoes addPointers for a key whose record was not kept (a roll that lost). */
export async function removePointers({ redis, parts, keys: k }: KeyStoreContext, record: ApiKeyRecord) {
  await Promise.all([
    redis
      .multi()
      .srem(k.accountKeys(record.account_id), record.id)
      .srem(k.accountAdmins(record.account_id), record.id)
      .exec(),
    redis.zrem(k.index(partOf(record.id, parts)), record.id),
    redis.del(k.hashById(record.id)),
  ]);
}

export const writeRecord = ({ redis, keys: k }: KeyStoreContext, record: ApiKeyRecord, hash: string) =>
  redis.hset(k.byHash(hash), storedFields(record, hash));

/**
 * Takes keys revoked (or expired after a roll) more than REVOKED_KEPT_DAYS ago out of their
 * account's key set, so that set — what GET /keys, creating and revoking read — stays bounded by
 * the daily cap on new keys. Their records stay: a pruned key still gets 403 revoked_api_key, and
 * `keys list` (the operator's CLI) still shows it. This prunes a list already read whole (create);
 * revoke and roll prune PRUNE_BATCH ids of the set each (key-changes.ts).
 */
export async function pruneRevoked(
  { redis, keys: k }: KeyStoreContext,
  accountId: string,
  keysOfAccount: ApiKeyRecord[],
  now = new Date(),
) {
  const before = new Date(now.getTime() - REVOKED_KEPT_DAYS * 86_400_000).toISOString();
  const old = keysOfAccount.filter((key) => key.status === 'revoked' && (key.revoked_at ?? '') < before);
  if (!old.length) return 0;
  const ids = old.map((key) => key.id);
  await redis
    .multi()
    .srem(k.accountKeys(accountId), ...ids)
    .srem(k.accountAdmins(accountId), ...ids)
    .exec();
  return ids.length;
}

/** MULTI replies carry per-command errors instead of rejecting: surface the first one. */
export async function execOrThrow(multi: ReturnType<Redis['multi']>): Promise<void> {
  const replies = (await multi.exec()) ?? [];
  const failed = replies.find(([error]) => error);
  if (failed) throw failed[0];
}
