// API keys and accounts in Redis: the management surface the CLI uses (keys/cli.ts); an admin HTTP
// API or page could reuse it as is. Only the SHA-256 of a key is stored (as the record's Redis key
// name and a field), with a short display prefix; the plaintext exists only in `create`'s result.
//
// Layout (prefix = REDIS_KEY_PREFIX):
//   <prefix>key:h:<sha256>      hash: the key record (+ `hash`, `last_used_at`)
//   <prefix>key:id:<key_id>     string: sha256 of that key (id → record)
//   <prefix>keys                zset: every key id by creation time (for `list`)
//   <prefix>account:<id>        hash: account (id, created_at)
//   <prefix>account:<id>:keys   set: key ids of the account
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { checkAccess } from './access-check.ts';
import { displayPrefix, generateApiKey, hashApiKey, type KeyMode } from './api-key-format.ts';
import { tierPolicies, tiers, type Tier } from './tiers.ts';

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  mode: KeyMode;
  tier: Tier;
  name: string;
  status: 'active' | 'revoked';
  /** Requests per minute (the tier's limit, or the enterprise key's own `--rate-limit`). */
  rate_limit: number;
  prefix: string;
  created_at: string;
  last_used_at?: string;
  revoked_at?: string;
}

export interface CreateKeyInput {
  mode: KeyMode;
  tier: Tier;
  name?: string;
  rateLimit?: number;
  accountId?: string;
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
}

/** A request the store refuses (bad input); callers show its message. */
export class KeyStoreError extends Error {}

export function createKeyStore(redis: Redis, prefix: string) {
  const k = {
    byHash: (hash: string) => `${prefix}key:h:${hash}`,
    hashById: (id: string) => `${prefix}key:id:${id}`,
    allKeys: `${prefix}keys`,
    account: (id: string) => `${prefix}account:${id}`,
    accountKeys: (id: string) => `${prefix}account:${id}:keys`,
  };

  async function create(input: CreateKeyInput): Promise<ApiKeyRecord & { key: string }> {
    const policy = tierPolicies[input.tier];
    if (!policy) throw new KeyStoreError(`unknown tier ${input.tier}; one of ${tiers.join(', ')}`);
    if (input.rateLimit !== undefined && !policy.customRateLimit) {
      throw new KeyStoreError(`--rate-limit is only available for the enterprise tier, not ${input.tier}`);
    }
    const now = new Date().toISOString();
    let accountId = input.accountId;
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
      name: input.name ?? '',
      status: 'active',
      rate_limit: input.rateLimit ?? policy.requestsPerMinute,
      prefix: displayPrefix(key),
      created_at: now,
    };
    // One transaction: a key is never visible without its id mapping and account.
    await redis
      .multi()
      .hsetnx(k.account(accountId), 'id', accountId)
      .hsetnx(k.account(accountId), 'created_at', now)
      .hset(k.byHash(hash), { ...record, hash })
      .set(k.hashById(record.id), hash)
      .sadd(k.accountKeys(accountId), record.id)
      .zadd(k.allKeys, Date.now(), record.id)
      .exec();
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
    const record = toRecord(result.fields);
    if (result.outcome === 'inactive') return { outcome: 'inactive', record };
    // The script stamped last_used_at after reading the record: reflect this request.
    if (result.outcome === 'allowed') record.last_used_at = now.toISOString();
    const rateLimit: RateLimitState = {
      limit: record.rate_limit,
      remaining: Math.max(0, record.rate_limit - result.used),
      resetSeconds: Math.max(1, Math.ceil(result.windowTtlMs / 1000)),
    };
    return { outcome: result.outcome, record, rateLimit };
  }

  async function findById(id: string): Promise<ApiKeyRecord | null> {
    const hash = await redis.get(k.hashById(id));
    if (!hash) return null;
    const fields = await redis.hgetall(k.byHash(hash));
    return fields.id ? toRecord(fields) : null;
  }

  /** Revokes a key (idempotent: revoking twice keeps the first revoked_at). Null when unknown. */
  async function revoke(id: string): Promise<ApiKeyRecord | null> {
    const hash = await redis.get(k.hashById(id));
    if (!hash) return null;
    await redis
      .multi()
      .hset(k.byHash(hash), 'status', 'revoked')
      .hsetnx(k.byHash(hash), 'revoked_at', new Date().toISOString())
      .exec();
    return findById(id);
  }

  /** Every key, oldest first (one pipelined round trip per stage). */
  async function list(): Promise<ApiKeyRecord[]> {
    const ids = await redis.zrange(k.allKeys, 0, -1);
    if (!ids.length) return [];
    const hashes = await redis.mget(ids.map(k.hashById));
    const pipeline = redis.pipeline();
    for (const hash of hashes) if (hash) pipeline.hgetall(k.byHash(hash));
    const replies = (await pipeline.exec()) ?? [];
    return replies
      .map(([, fields]) => fields as Record<string, string>)
      .filter((fields) => fields && fields.id)
      .map(toRecord);
  }

  return { create, authorize, findById, revoke, list };
}

export type KeyStore = ReturnType<typeof createKeyStore>;

function sameHash(stored: string | undefined, computed: string): boolean {
  if (!stored || stored.length !== computed.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(computed, 'hex'));
}

/** The public view of a stored record: never the hash. */
function toRecord(fields: Record<string, string>): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: fields.id!,
    account_id: fields.account_id!,
    mode: fields.mode === 'test' ? 'test' : 'live',
    tier: fields.tier as Tier,
    name: fields.name ?? '',
    status: fields.status === 'active' ? 'active' : 'revoked',
    rate_limit: Number(fields.rate_limit),
    prefix: fields.prefix!,
    created_at: fields.created_at!,
  };
  if (fields.last_used_at) record.last_used_at = fields.last_used_at;
  if (fields.revoked_at) record.revoked_at = fields.revoked_at;
  return record;
}
