// API keys and accounts in Redis. Only SHA-256 hashes of keys are stored (README, "API keys").
// This module is the management surface the CLI uses; an admin HTTP API could reuse it as is.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { displayPrefix, generateApiKey, hashApiKey, type KeyMode } from './api-key-format.ts';
import { tierPolicies, type Tier } from './tiers.ts';

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  mode: KeyMode;
  tier: Tier;
  name: string;
  status: 'active' | 'revoked';
  rate_limit: number;
  prefix: string;
  created_at: string;
  revoked_at?: string;
}

export interface CreateKeyInput {
  mode: KeyMode;
  tier: Tier;
  name?: string;
  rateLimit?: number;
  accountId?: string;
}

export class KeyStoreError extends Error {}

export function createKeyStore(redis: Redis, prefix: string) {
  const k = {
    byHash: (hash: string) => `${prefix}key:h:${hash}`,
    hashById: (id: string) => `${prefix}key:id:${id}`,
    allKeys: `${prefix}keys`,
    account: (id: string) => `${prefix}account:${id}`,
  };

  async function create(input: CreateKeyInput): Promise<ApiKeyRecord & { key: string }> {
    const policy = tierPolicies[input.tier];
    if (input.rateLimit !== undefined && !policy.customRateLimit) {
      throw new KeyStoreError(`--rate-limit is only available for the enterprise tier, not ${input.tier}`);
    }
    let accountId = input.accountId;
    if (accountId !== undefined) {
      if (!(await redis.exists(k.account(accountId))))
        throw new KeyStoreError(`unknown account ${accountId}`);
    } else {
      accountId = `acct_${randomBytes(12).toString('hex')}`;
      await redis.hset(k.account(accountId), { id: accountId, created_at: new Date().toISOString() });
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
      created_at: new Date().toISOString(),
    };
    await redis
      .multi()
      .hset(k.byHash(hash), { ...record, hash })
      .set(k.hashById(record.id), hash)
      .zadd(k.allKeys, Date.now(), record.id)
      .exec();
    return { ...record, key };
  }

  /** Looks a presented key up by its hash; the stored hash is compared in constant time. */
  async function findByKey(key: string): Promise<ApiKeyRecord | null> {
    const hash = hashApiKey(key);
    const fields = await redis.hgetall(k.byHash(hash));
    if (!fields.hash) return null;
    const expected = Buffer.from(fields.hash, 'hex');
    const actual = Buffer.from(hash, 'hex');
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    return toRecord(fields);
  }

  async function findById(id: string): Promise<ApiKeyRecord | null> {
    const hash = await redis.get(k.hashById(id));
    if (!hash) return null;
    const fields = await redis.hgetall(k.byHash(hash));
    return fields.id ? toRecord(fields) : null;
  }

  async function revoke(id: string): Promise<ApiKeyRecord | null> {
    const hash = await redis.get(k.hashById(id));
    if (!hash) return null;
    await redis.hset(k.byHash(hash), { status: 'revoked', revoked_at: new Date().toISOString() });
    return findById(id);
  }

  async function list(): Promise<ApiKeyRecord[]> {
    const ids = await redis.zrange(k.allKeys, 0, -1);
    const records = await Promise.all(ids.map(findById));
    return records.filter((record): record is ApiKeyRecord => record !== null);
  }

  return { create, findByKey, findById, revoke, list };
}

export type KeyStore = ReturnType<typeof createKeyStore>;

function toRecord(fields: Record<string, string>): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: fields.id!,
    account_id: fields.account_id!,
    mode: fields.mode as KeyMode,
    tier: fields.tier as Tier,
    name: fields.name ?? '',
    status: fields.status === 'revoked' ? 'revoked' : 'active',
    rate_limit: Number(fields.rate_limit),
    prefix: fields.prefix!,
    created_at: fields.created_at!,
  };
  if (fields.revoked_at) record.revoked_at = fields.revoked_at;
  return record;
}
