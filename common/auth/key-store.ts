// API keys and accounts in Redis: the management surface of the CLI (keys/cli.ts) and of admin
// keys over the API (ingest/keys/). Only the SHA-256 of a key is stored (as the record's Redis key
// name and a field), with a short display prefix; the plaintext exists only in the result of
// `create` and `roll`. Given an actor, every change appends its audit event to the outbox stream in
// the same transaction (key-audit.ts); only fixtures (tests, benchmarks) change keys unrecorded.
//
// Layout (prefix = REDIS_KEY_PREFIX):
//   <prefix>key:h:<sha256>      hash: the key record (+ `hash`, `last_used_at`)
//   <prefix>key:id:<key_id>     string: sha256 of that key (id → record)
//   <prefix>keys                zset: every key id by creation time (for `list`)
//   <prefix>account:<id>        hash: account (id, created_at; `admins_indexed` once its admin
//                               set is complete, `prune_cursor` of the bounded pruning)
//   <prefix>account:<id>:keys   set: key ids of the account (revoked ones leave it after
//                               REVOKED_KEPT_DAYS: pruning; their records stay, so they still get 403)
//   <prefix>account:<id>:admins set: ids of the account's admin keys that are not revoked
//   <prefix>audit:keys          stream: audit events not yet copied to ClickHouse
//
// A rolled key keeps working until its `expires_at`; from then on it reads as revoked (status and
// revoked_at here, refusal in access-check.ts), so expiry needs no job.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { checkAccess, type AccessResult } from './access-check.ts';
import { displayPrefix, generateApiKey, hashApiKey, type KeyMode } from './api-key-format.ts';
import { keyAuditEvent, keyAuditOutboxKey, type KeyActor } from './key-audit.ts';
import { revokeScript, rollScript, scriptOutcome } from './key-store-scripts.ts';
import { roleOf, type Role } from './roles.ts';
import { tierPolicies, tiers, type Tier } from './tiers.ts';

/** How long revoked keys stay in their account's key set (GET /keys) before they are pruned. */
export const REVOKED_KEPT_DAYS = 30;
/**
 * Ids of the account's key set that each revoke and roll looks at for pruning: more than the one id
 * a roll adds, so the pruning keeps up, and few enough that every call stays cheap.
 */
export const PRUNE_BATCH = 100;

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  mode: KeyMode;
  tier: Tier;
  role: Role;
  name: string;
  status: 'active' | 'revoked';
  /** Requests per minute (the tier's limit, or the enterprise key's own `--rate-limit`). */
  rate_limit: number;
  prefix: string;
  created_at: string;
  last_used_at?: string;
  /** When the key was revoked, or when it expired after a roll. */
  revoked_at?: string;
  /** Set by a roll: the key works until then. */
  expires_at?: string;
  /** Set by a roll: the id of the replacement key. */
  replaced_by?: string;
}

export interface CreateKeyInput {
  mode: KeyMode;
  tier: Tier;
  name?: string;
  /** Default `standard`. */
  role?: Role;
  rateLimit?: number;
  accountId?: string;
}

export interface RevokeOptions {
  /** Who revokes (recorded in the audit log); none for fixtures. */
  actor?: KeyActor;
  /**
   * The API's no-lock-out rule: refuse (LastAdminKeyError) unless another active admin key that is
   * not rolled remains in the account, of one of these modes.
   */
  keepAdminOfModes?: readonly KeyMode[];
}

export interface RollOptions {
  /** When the old key stops working. */
  expiresAt: Date;
  actor?: KeyActor;
}

/** What `authorize` decided for a presented key (the middleware maps it to HTTP). */
export type Authorization =
  | { outcome: 'unknown' }
  | { outcome: 'inactive'; record: ApiKeyRecord }
  | { outcome: 'allowed' | 'rate_limited'; record: ApiKeyRecord; rateLimit: RateLimitState };

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

/** A request the store refuses (bad input); callers show its message. */
export class KeyStoreError extends Error {}
/** Revoking this key would leave the account without an admin key that can manage its keys. */
export class LastAdminKeyError extends KeyStoreError {}
/** Only an active key that was not rolled already can be rolled. */
export class KeyNotRollableError extends KeyStoreError {}

/** The Redis key names of keys and accounts (the layout above); spelled here only. */
export function keyStoreKeys(prefix: string) {
  return {
    byHash: (hash: string) => `${prefix}key:h:${hash}`,
    hashById: (id: string) => `${prefix}key:id:${id}`,
    allKeys: `${prefix}keys`,
    account: (id: string) => `${prefix}account:${id}`,
    accountKeys: (id: string) => `${prefix}account:${id}:keys`,
    accountAdmins: (id: string) => `${prefix}account:${id}:admins`,
    audit: keyAuditOutboxKey(prefix),
  };
}

export function createKeyStore(redis: Redis, prefix: string) {
  const k = keyStoreKeys(prefix);
  /** The scripts' last arguments: now, the pruning cutoff and batch, key names without id/hash. */
  const pruneArgs = (at: Date) => [
    at.toISOString(),
    new Date(at.getTime() - REVOKED_KEPT_DAYS * 86_400_000).toISOString(),
    PRUNE_BATCH,
    k.hashById(''),
    k.byHash(''),
  ];

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
    // One transaction: a key is never visible without its id mapping, account and audit event.
    const multi = redis
      .multi()
      .hsetnx(k.account(accountId), 'id', accountId)
      .hsetnx(k.account(accountId), 'created_at', now)
      .hset(k.byHash(hash), { ...record, hash })
      .set(k.hashById(record.id), hash)
      .sadd(k.accountKeys(accountId), record.id)
      .zadd(k.allKeys, at.getTime(), record.id);
    if (record.role === 'admin') multi.sadd(k.accountAdmins(accountId), record.id);
    // A new account's admin set is complete from its first key: revoking never has to index it.
    if (newAccount) multi.hset(k.account(accountId), 'admins_indexed', '1');
    if (actor) multi.xadd(k.audit, '*', 'event', JSON.stringify(keyAuditEvent('create', actor, record, at)));
    await execOrThrow(multi);
    return { ...record, key };
  }

  /**
   * The per-request check (lookup + revocation + rate limit + usage counting, one round trip).
   * `key` must already have passed `parseApiKey`. `endpoint` labels the usage counters.
   */
  async function authorize(key: string, endpoint: string, now = new Date()): Promise<Authorization> {
    const hash = hashApiKey(key);
    const result = await checkAccess(redis, prefix, k.byHash(hash), endpoint, now);
    // The record was found by its hash; compare the stored hash in constant time anyway, so the
    // decision never rests on a variable-time string comparison.
    if (result.outcome === 'unknown' || !sameHash(result.fields.hash, hash)) return { outcome: 'unknown' };
    const record = toRecord(result.fields, now);
    if (result.outcome === 'inactive') return { outcome: 'inactive', record };
    // The script stamped last_used_at after reading the record: reflect this request.
    if (result.outcome === 'allowed') record.last_used_at = now.toISOString();
    return { outcome: result.outcome, record, rateLimit: tighterWindow(record, result) };
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
   * Revokes a key (idempotent: revoking twice keeps the first revoked_at, and records one event).
   * Null when unknown; LastAdminKeyError when `keepAdminOfModes` refuses.
   */
  async function revoke(id: string, options: RevokeOptions = {}): Promise<ApiKeyRecord | null> {
    const found = await lookup(id);
    if (!found) return null;
    const { hash, record: target } = found;
    const at = new Date();
    const event = options.actor ? JSON.stringify(keyAuditEvent('revoke', options.actor, target, at)) : '';
    const outcome = await revokeScript.run(
      redis,
      5,
      k.byHash(hash),
      k.audit,
      k.accountKeys(target.account_id),
      k.accountAdmins(target.account_id),
      k.account(target.account_id),
      event,
      options.keepAdminOfModes?.join(',') ?? '',
      id,
      ...pruneArgs(at),
    );
    if (outcome === scriptOutcome.unknown) return null;
    if (outcome === scriptOutcome.lastAdmin) {
      throw new LastAdminKeyError(
        `${id} is the last active admin key that can manage the account's ${target.mode} keys`,
      );
    }
    return findById(id);
  }

  /**
   * Rolls a key: a new key with the same account, mode, tier, role, name and rate limit, while the
   * old one keeps working until `expiresAt`. Null when unknown; KeyNotRollableError when the key is
   * revoked, expired or already rolled.
   */
  async function roll(
    id: string,
    options: RollOptions,
  ): Promise<{ created: ApiKeyRecord & { key: string }; previous: ApiKeyRecord } | null> {
    const found = await lookup(id);
    if (!found) return null;
    const { hash: oldHash, record: old } = found;
    const at = new Date();
    const key = generateApiKey(old.mode);
    const hash = hashApiKey(key);
    const record: ApiKeyRecord = {
      id: `key_${randomBytes(12).toString('hex')}`,
      account_id: old.account_id,
      mode: old.mode,
      tier: old.tier,
      role: old.role,
      name: old.name,
      status: 'active',
      rate_limit: old.rate_limit,
      prefix: displayPrefix(key),
      created_at: at.toISOString(),
    };
    const expiresAt = options.expiresAt.toISOString();
    const event = options.actor
      ? JSON.stringify(keyAuditEvent('roll', options.actor, old, at, { newKeyId: record.id, expiresAt }))
      : '';
    const fields = Object.entries({ ...record, hash }).flatMap(([name, value]) => [name, String(value)]);
    const outcome = await rollScript.run(
      redis,
      8,
      k.byHash(oldHash),
      k.byHash(hash),
      k.hashById(record.id),
      k.accountKeys(old.account_id),
      k.allKeys,
      k.audit,
      k.accountAdmins(old.account_id),
      k.account(old.account_id),
      expiresAt,
      record.id,
      hash,
      at.getTime(),
      event,
      record.role === 'admin' ? '1' : '0',
      ...pruneArgs(at),
      ...fields,
    );
    if (outcome === scriptOutcome.unknown) return null;
    if (outcome !== scriptOutcome.changed) {
      throw new KeyNotRollableError(
        old.expires_at
          ? `${id} was already rolled (replaced by ${old.replaced_by}; it stops working at ${old.expires_at})`
          : `${id} is ${old.status}; only active keys can be rolled`,
      );
    }
    return { created: { ...record, key }, previous: (await findById(id))! };
  }

  /**
   * Takes keys revoked (or expired after a roll) more than REVOKED_KEPT_DAYS ago out of their
   * account's key set, so that set — what GET /keys, creating and revoking read — stays bounded by
   * the daily cap on new keys. Their records stay: a pruned key still gets 403 revoked_api_key, and
   * `keys list` (the operator's CLI) still shows it. This prunes a list already read whole (create);
   * revoke and roll prune PRUNE_BATCH ids of the set each, in their scripts.
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
    return (await recordsOf(ids)).sort(
      (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
    );
  }

  /** The records of those ids that exist, in two round trips whatever their number. */
  async function recordsOf(ids: string[]): Promise<ApiKeyRecord[]> {
    if (!ids.length) return [];
    const hashes = await redis.mget(ids.map(k.hashById));
    const pipeline = redis.pipeline();
    for (const hash of hashes) if (hash) pipeline.hgetall(k.byHash(hash));
    const replies = (await pipeline.exec()) ?? [];
    const now = new Date();
    return replies
      .map(([, fields]) => fields as Record<string, string>)
      .filter((fields) => fields && fields.id)
      .map((fields) => toRecord(fields, now));
  }

  /** Every key, oldest first (one pipelined round trip per stage). */
  async function list(): Promise<ApiKeyRecord[]> {
    return recordsOf(await redis.zrange(k.allKeys, 0, -1));
  }

  return { create, authorize, findById, findByIds: recordsOf, revoke, roll, list, listAccount, pruneRevoked };
}

export type KeyStore = ReturnType<typeof createKeyStore>;

function sameHash(stored: string | undefined, computed: string): boolean {
  if (!stored || stored.length !== computed.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(computed, 'hex'));
}

/** MULTI replies carry per-command errors instead of rejecting: surface the first one. */
async function execOrThrow(multi: ReturnType<Redis['multi']>): Promise<void> {
  const replies = (await multi.exec()) ?? [];
  const failed = replies.find(([error]) => error);
  if (failed) throw failed[0];
}

/** The public view of a stored record at `now`: never the hash; a rolled key past expiry is revoked. */
function toRecord(fields: Record<string, string>, now = new Date()): ApiKeyRecord {
  const expired = !!fields.expires_at && fields.expires_at <= now.toISOString();
  const record: ApiKeyRecord = {
    id: fields.id!,
    account_id: fields.account_id!,
    mode: fields.mode === 'test' ? 'test' : 'live',
    tier: fields.tier as Tier,
    role: roleOf(fields.role),
    name: fields.name ?? '',
    status: fields.status === 'active' && !expired ? 'active' : 'revoked',
    rate_limit: Number(fields.rate_limit),
    prefix: fields.prefix!,
    created_at: fields.created_at!,
  };
  if (fields.last_used_at) record.last_used_at = fields.last_used_at;
  if (fields.revoked_at) record.revoked_at = fields.revoked_at;
  else if (expired) record.revoked_at = fields.expires_at;
  if (fields.expires_at) record.expires_at = fields.expires_at;
  if (fields.replaced_by) record.replaced_by = fields.replaced_by;
  return record;
}
