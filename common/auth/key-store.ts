// API keys and accounts in Redis: the management surface of the CLI (keys/cli.ts) and of admin
// keys over the API (ingest/keys/). Only the SHA-256 of a key is stored (in the record's Redis key
// name and a field), with a short display prefix; the plaintext exists only in the result of
// `create` and `roll`. Given an actor, every change appends its audit event to the outbox right
// after the change (key-audit.ts); only fixtures (tests, benchmarks) change keys unrecorded.
//
// Layout (prefix = REDIS_KEY_PREFIX; tags: common/redis-keys/tags.ts):
//   {k:<sha256>}:key              hash: the key record (+ `hash`, `last_used_at`); beside it, under
//                                 the same tag, its rate window and usage counters (usage/keys.ts)
//   {key:id:<key_id>}             string: sha256 of that key (id → record), a tag of its own
//   {g:<n>}:keys                  zset: the key ids of part n (of REDIS_GLOBAL_PARTS, by id) by
//                                 creation time (for `list`, which reads every part)
//   {a:<id>}:account:<id>         hash: account (id, created_at; `admins_indexed` once its admin
//                                 set is complete, `prune_cursor` of the bounded pruning)
//   {a:<id>}:account:<id>:keys    set: key ids of the account (revoked ones leave it after
//                                 REVOKED_KEPT_DAYS: pruning; their records stay, so they still get 403)
//   {a:<id>}:account:<id>:admins  set: ids of the account's admin keys that are active and not
//                                 rolled: what the no-lock-out guard relies on (key-changes.ts)
//
// A rolled key keeps working until its `expires_at`; from then on it reads as revoked (status and
// revoked_at here, refusal in access-check.ts), so expiry needs no job.
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import { authorizeKey } from './key-authorize.ts';
import { appendKeyAuditEvent, type KeyActor } from './key-audit.ts';
import { keyChanges, KeyNotRollableError, KeyStoreError, LastAdminKeyError } from './key-changes.ts';
import { PRUNE_BATCH, REVOKED_KEPT_DAYS } from './key-changes.ts';
import { createKey, type CreateKeyInput } from './key-create.ts';
import { addPointers, pruneRevoked, removePointers, writeRecord } from './key-pointers.ts';
import { findKeyById, listAccountKeys, listAllKeys, lookupKey, recordsOf } from './key-reads.ts';
import type { ApiKeyRecord } from './key-record.ts';
import { accountSpace, apiKeySpace, DEFAULT_GLOBAL_PARTS, partSpace } from '../redis-keys/tags.ts';
import { dirtyMarker } from '../usage/dirty.ts';

export type { ApiKeyRecord } from './key-record.ts';
export { KeyNotRollableError, KeyStoreError, LastAdminKeyError, PRUNE_BATCH, REVOKED_KEPT_DAYS };
export type { RevokeOptions, RollOptions } from './key-changes.ts';
export type { Authorization, RateLimitState } from './key-authorize.ts';
export type { CreateKeyInput } from './key-create.ts';
export { execOrThrow } from './key-pointers.ts';

/** The Redis key names of keys and accounts (the layout above); spelled here only. */
export function keyStoreKeys(prefix: string) {
  return {
    byHash: (hash: string) => `${apiKeySpace(prefix, hash)}key`,
    hashById: (id: string) => `${prefix}{key:id:${id}}`,
    /** Part `part` of the key index. */
    index: (part: number) => `${partSpace(prefix, part)}keys`,
    account: (id: string) => `${accountSpace(prefix, id)}account:${id}`,
    accountKeys: (id: string) => `${accountSpace(prefix, id)}account:${id}:keys`,
    accountAdmins: (id: string) => `${accountSpace(prefix, id)}account:${id}:admins`,
  };
}

/** What the store's parts (key-create.ts, key-authorize.ts, key-reads.ts, key-pointers.ts) share. */
export interface KeyStoreContext {
  redis: Redis;
  prefix: string;
  /** REDIS_GLOBAL_PARTS. */
  parts: number;
  keys: KeyStoreKeys;
  /** Where the per-request check reports steps that failed without failing the request. */
  logger?: Logger;
}

/**
 * `parts`: REDIS_GLOBAL_PARTS (the key index, the audit outbox and the dirty sets are split in as
 * many); `logger`: the process's, for the per-request check's steps that fail without failing it.
 */
export function createKeyStore(redis: Redis, prefix: string, parts = DEFAULT_GLOBAL_PARTS, logger?: Logger) {
  const context: KeyStoreContext = { redis, prefix, parts, keys: keyStoreKeys(prefix), logger };
  const markDirty = dirtyMarker(redis, prefix, parts);
  const findById = (id: string) => findKeyById(context, id);
  const findByIds = (ids: string[]) => recordsOf(context, ids);
  const changes = keyChanges({
    redis,
    keys: context.keys,
    lookup: (id) => lookupKey(context, id),
    findById,
    recordsOf: findByIds,
    addPointers: (record, hash, account) => addPointers(context, record, hash, account),
    removePointers: (record) => removePointers(context, record),
    writeRecord: (record, hash) => writeRecord(context, record, hash),
    audit: async (event) => {
      await appendKeyAuditEvent(redis, prefix, parts, event);
    },
  });
  return {
    create: (input: CreateKeyInput, actor?: KeyActor) => createKey(context, input, actor),
    authorize: (key: string, endpoint: string, now?: Date) =>
      authorizeKey(context, markDirty, key, endpoint, now),
    findById,
    findByIds,
    revoke: changes.revoke,
    roll: changes.roll,
    list: () => listAllKeys(context),
    listAccount: (accountId: string) => listAccountKeys(context, accountId),
    pruneRevoked: (accountId: string, keysOfAccount: ApiKeyRecord[], now?: Date) =>
      pruneRevoked(context, accountId, keysOfAccount, now),
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
/** What key-changes.ts needs of the store. */
export type KeyStoreKeys = ReturnType<typeof keyStoreKeys>;
