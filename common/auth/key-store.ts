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
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { checkAccess, type AccessResult } from './access-check.ts';
import { displayPrefix, generateApiKey, hashApiKey, type KeyMode } from './api-key-format.ts';
import { appendKeyAuditEvent, keyAuditEvent, type KeyActor } from './key-audit.ts';
import { keyChanges, KeyNotRollableError, KeyStoreError, LastAdminKeyError } from './key-changes.ts';
import { PRUNE_BATCH, REVOKED_KEPT_DAYS } from './key-changes.ts';
import { sameHash, storedFields, toRecord, type ApiKeyRecord } from './key-record.ts';
import type { Role } from './roles.ts';
import { tierPolicies, tiers, type Tier } from './tiers.ts';
import { assertOneSlot } from '../redis-keys/slot.ts';
import { accountSpace, apiKeySpace, DEFAULT_GLOBAL_PARTS, partOf, partSpace } from '../redis-keys/tags.ts';
import { dirtyMarker } from '../usage/dirty.ts';

export type { ApiKeyRecord } from './key-record.ts';
export { KeyNotRollableError, KeyStoreError, LastAdminKeyError, PRUNE_BATCH, REVOKED_KEPT_DAYS };
export type { RevokeOptions, RollOptions } from './key-changes.ts';

export interface CreateKeyInput {
  mode: KeyMode;
  tier: Tier;
  name?: string;
  /** Default `standard`. */
  role?: Role;
  rateLimit?: number;
  accountId?: string;
}

/** What `authorize` decided for a presented key (the middleware maps it to HTTP). */
export type Authorization =
  | { outcome: 'unknown' }
  | { outcome: 'inactive'; record: ApiKeyRecord }
  | {
      outcome: 'allowed' | 'rate_limited';
      record: ApiKeyRecord;
      rateLimit: RateLimitState;
      /** The SHA-256 of the key: the name of its usage counters (common/usage/keys.ts). */
      keyHash: string;
    };

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the current window closes (at least 1). */
  resetSeconds: number;
  /** The window described: the key's own, or its account's when that one has less room left. */
  scope: 'key' | 'account';
}

/**
 * The window a client should pace itself by: the one that refused the request, else the one with
 * less room left (the key's on a tie).
 */
function tighterWindow(record: ApiKeyRecord, result: AccessResult): RateLimitState {
  const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
  const key: RateLimitState = {
    limit: record.rate_limit,
    remaining: Math.max(0, record.rate_limit - result.used),
    resetSeconds: seconds(result.windowTtlMs),
    scope: 'key',
  };
  const account = result.account;
  if (!account || result.limitedBy === 'key') return key;
  const accountState: RateLimitState = {
    limit: account.limit,
    remaining: Math.max(0, account.limit - account.used),
    resetSeconds: seconds(account.ttlMs),
    scope: 'account',
  };
  return result.limitedBy === 'account' || accountState.remaining < key.remaining ? accountState : key;
}

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

/** `parts`: REDIS_GLOBAL_PARTS (the key index, the audit outbox and the dirty sets are split in as many). */
export function createKeyStore(redis: Redis, prefix: string, parts = DEFAULT_GLOBAL_PARTS) {
  const k = keyStoreKeys(prefix);
  const markDirty = dirtyMarker(redis, prefix, parts);

  /**
   * Writes what points to a new key before its record exists: the account's key set (and admin
   * set; `replacing` leaves it, for a roll), the key index and the id → hash lookup. They are in
   * different slots, so these are separate commands; the record is written after all of them
   * (`writeRecord`), so a key never authenticates before its account membership and index entries
   * exist. A process that dies in between leaves ids without a record, which every reader skips.
   */
  async function addPointers(
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
  async function removePointers(record: ApiKeyRecord) {
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

  const writeRecord = (record: ApiKeyRecord, hash: string) =>
    redis.hset(k.byHash(hash), storedFields(record, hash));

  async function audit(event: Parameters<typeof appendKeyAuditEvent>[3]) {
    await appendKeyAuditEvent(redis, prefix, parts, event);
  }

  async function create(input: CreateKeyInput, actor?: KeyActor): Promise<ApiKeyRecord & { key: string }> {
    const policy = tierPolicies[input.tier];
    if (!policy) throw new KeyStoreError(`unknown tier ${input.tier}; one of ${tiers.join(', ')}`);
    if (input.rateLimit !== undefined && !policy.customRateLimit) {
      throw new KeyStoreError(`--rate-limit is only available for the enterprise tier, not ${input.tier}`);
    }
    const at = new Date();
    const now = at.toISOString();
    let accountId = input.accountId;
    const newAccount = accountId === undefined;
    if (accountId !== undefined) {
      if (!(await redis.exists(k.account(accountId))))
        throw new KeyStoreError(`unknown account ${accountId}`);
    } else {
      accountId = `acct_${randomBytes(12).toString('hex')}`;
    }
    const key = generateApiKey(input.mode);
    const hash = hashApiKey(key);
    const record: ApiKeyRecord = {
      id: `key_${randomBytes(12).toString('hex')}`,
      account_id: accountId,
      mode: input.mode,
      tier: input.tier,
      role: input.role ?? 'standard',
      name: input.name ?? '',
      status: 'active',
      rate_limit: input.rateLimit ?? policy.requestsPerMinute,
      prefix: displayPrefix(key),
      created_at: now,
    };
    await addPointers(record, hash, { created: now, newAccount });
    await writeRecord(record, hash);
    if (actor) await audit(keyAuditEvent('create', actor, record, at));
    return { ...record, key };
  }

  /**
   * The per-request check (lookup + revocation + rate limits + usage counting: one round trip, two
   * for a request the key's window admits, access-check.ts). `key` must already have passed
   * `parseApiKey`. `endpoint` labels the usage counters.
   */
  async function authorize(key: string, endpoint: string, now = new Date()): Promise<Authorization> {
    const hash = hashApiKey(key);
    const result = await checkAccess(redis, prefix, k.byHash(hash), hash, endpoint, now, markDirty);
    // The record was found by its hash; compare the stored hash in constant time anyway, so the
    // decision never rests on a variable-time string comparison.
    if (result.outcome === 'unknown' || !sameHash(result.fields.hash, hash)) return { outcome: 'unknown' };
    const record = toRecord(result.fields, now);
    if (result.outcome === 'inactive') return { outcome: 'inactive', record };
    // The script stamped last_used_at after reading the record: reflect this request.
    if (result.outcome === 'allowed') record.last_used_at = now.toISOString();
    return { outcome: result.outcome, record, rateLimit: tighterWindow(record, result), keyHash: hash };
  }

  async function findById(id: string): Promise<ApiKeyRecord | null> {
    return (await lookup(id))?.record ?? null;
  }

  async function lookup(id: string): Promise<{ hash: string; record: ApiKeyRecord } | null> {
    const hash = await redis.get(k.hashById(id));
    if (!hash) return null;
    const fields = await redis.hgetall(k.byHash(hash));
    return fields.id ? { hash, record: toRecord(fields) } : null;
  }

  /**
   * The records of those ids that exist, in two round trips whatever their number: each id's lookup
   * and each record are in slots of their own, so these are single commands sent together.
   */
  async function recordsOf(ids: string[]): Promise<ApiKeyRecord[]> {
    if (!ids.length) return [];
    const hashes = await Promise.all(ids.map((id) => redis.get(k.hashById(id))));
    const found = await Promise.all(
      hashes.filter((hash) => hash).map((hash) => redis.hgetall(k.byHash(hash!))),
    );
    const now = new Date();
    return found.filter((fields) => fields.id).map((fields) => toRecord(fields, now));
  }

  /**
   * Takes keys revoked (or expired after a roll) more than REVOKED_KEPT_DAYS ago out of their
   * account's key set, so that set — what GET /keys, creating and revoking read — stays bounded by
   * the daily cap on new keys. Their records stay: a pruned key still gets 403 revoked_api_key, and
   * `keys list` (the operator's CLI) still shows it. This prunes a list already read whole (create);
   * revoke and roll prune PRUNE_BATCH ids of the set each (key-changes.ts).
   */
  async function pruneRevoked(accountId: string, keysOfAccount: ApiKeyRecord[], now = new Date()) {
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

  /** The keys of one account, oldest first. */
  async function listAccount(accountId: string): Promise<ApiKeyRecord[]> {
    const ids = await redis.smembers(k.accountKeys(accountId));
    return oldestFirst(await recordsOf(ids));
  }

  /** Every key, oldest first: every part of the index. */
  async function list(): Promise<ApiKeyRecord[]> {
    const perPart = await Promise.all(
      Array.from({ length: parts }, (_, part) => redis.zrange(k.index(part), 0, -1)),
    );
    return oldestFirst(await recordsOf(perPart.flat()));
  }

  const changes = keyChanges({
    redis,
    keys: k,
    lookup,
    findById,
    recordsOf,
    addPointers,
    removePointers,
    writeRecord,
    audit,
  });
  return {
    create,
    authorize,
    findById,
    findByIds: recordsOf,
    revoke: changes.revoke,
    roll: changes.roll,
    list,
    listAccount,
    pruneRevoked,
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
/** What key-changes.ts needs of the store. */
export type KeyStoreKeys = ReturnType<typeof keyStoreKeys>;

const oldestFirst = (records: ApiKeyRecord[]) =>
  records.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));

/** MULTI replies carry per-command errors instead of rejecting: surface the first one. */
export async function execOrThrow(multi: ReturnType<Redis['multi']>): Promise<void> {
  const replies = (await multi.exec()) ?? [];
  const failed = replies.find(([error]) => error);
  if (failed) throw failed[0];
}
