// The per-request check of a presented key (key-store.ts), and the rate-limit window it reports.
import { checkAccess, type AccessResult } from './access-check.ts';
import { hashApiKey } from './api-key-format.ts';
import { sameHash, toRecord, type ApiKeyRecord } from './key-record.ts';
import type { KeyStoreContext } from './key-store.ts';
import type { DirtyMarker } from '../usage/dirty.ts';

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
 * The per-request check (lookup + revocation + rate limits + usage counting: one round trip, two
 * for a request the key's window admits, access-check.ts). `key` must already have passed
 * `parseApiKey`. `endpoint` labels the usage counters.
 */
export async function authorizeKey(
  { redis, prefix, keys: k, logger }: KeyStoreContext,
  markDirty: DirtyMarker,
  key: string,
  endpoint: string,
  now = new Date(),
): Promise<Authorization> {
  const hash = hashApiKey(key);
  const result = await checkAccess(redis, prefix, k.byHash(hash), hash, endpoint, now, markDirty, logger);
  // The record was found by its hash; compare the stored hash in constant time anyway, so the
  // decision never rests on a variable-time string comparison.
  if (result.outcome === 'unknown' || !sameHash(result.fields.hash, hash)) return { outcome: 'unknown' };
  const record = toRecord(result.fields, now);
  if (result.outcome === 'inactive') return { outcome: 'inactive', record };
  // The script stamped last_used_at after reading the record: reflect this request.
  if (result.outcome === 'allowed') record.last_used_at = now.toISOString();
  return { outcome: result.outcome, record, rateLimit: tighterWindow(record, result), keyHash: hash };
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
