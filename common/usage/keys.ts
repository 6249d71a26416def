// Redis key names and time buckets of the usage counters, shared by the hot-path scripts
// (common/auth/access-check.ts), the readers (counters.ts) and the ClickHouse rollup (rollup.ts).
// Days and months are UTC, so every process and the rollup agree on the bucket of a request.
//
// A key's counters and its rate window live under its API key's hash tag, named by the SHA-256 of
// the key (what a request presents), beside its record (key-store.ts): the access check touches
// them all in one script on one slot. The account's rate window lives under the account's tag. The
// day's dirty sets (which keys to roll up) are REDIS_GLOBAL_PARTS parts, by key hash.
import { accountSpace, allPartSpaces, apiKeySpace, partOf, partSpace } from '../redis-keys/tags.ts';

/** Daily counters live 40 days in Redis, monthly ones 13 months; ClickHouse keeps history. */
export const DAY_TTL_SECONDS = 40 * 24 * 3600;
export const MONTH_TTL_SECONDS = 400 * 24 * 3600;
/** The dirty set of a day names the keys whose counters changed that day (read by the rollup). */
export const DIRTY_TTL_SECONDS = 3 * 24 * 3600;

export interface UsageBuckets {
  day: string; // YYYY-MM-DD (UTC)
  month: string; // YYYY-MM (UTC)
}

export function bucketsOf(at: Date): UsageBuckets {
  const iso = at.toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

/** The counters and rate window of the key whose SHA-256 is `keyHash`. */
export function usageKeys(prefix: string, keyHash: string) {
  return {
    day: (day: string) => `${apiKeySpace(prefix, keyHash)}usage:d:${day}`,
    month: (month: string) => `${apiKeySpace(prefix, keyHash)}usage:m:${month}`,
    total: `${apiKeySpace(prefix, keyHash)}usage:total`,
    rateWindow: `${apiKeySpace(prefix, keyHash)}rl`,
  };
}

/** The rate window that all keys of an account share (common/auth/access-check.ts). */
export const accountRateWindowKey = (prefix: string, accountId: string) =>
  `${accountSpace(prefix, accountId)}rla:${accountId}`;

/** The part of the day's dirty set that names the key hashed `keyHash`. */
export const dirtyKey = (prefix: string, day: string, keyHash: string, parts: number) =>
  `${partSpace(prefix, partOf(keyHash, parts))}usage:dirty:${day}`;

/** Every part of the day's dirty set (the rollup reads them all). */
export const dirtyKeysOfDay = (prefix: string, day: string, parts: number) =>
  allPartSpaces(prefix, parts).map((space) => `${space}usage:dirty:${day}`);

/** Hash fields of the day/month/total hashes. Per-endpoint request counts are `ep:<METHOD> <route>`. */
export const usageFields = {
  requests: 'requests',
  rateLimited: 'rate_limited',
  endpointPrefix: 'ep:',
  listingsCreated: 'listings_created',
  listingsDuplicates: 'listings_duplicates',
  listingsFailed: 'listings_failed',
} as const;
