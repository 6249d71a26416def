// Redis key names and time buckets of the usage counters, shared by the hot-path Lua script
// (common/auth/access-check.ts), the readers (counters.ts) and the ClickHouse rollup (rollup.ts).
// Days and months are UTC, so every process and the rollup agree on the bucket of a request.

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

export function usageKeys(prefix: string, keyId: string) {
  return {
    day: (day: string) => `${prefix}usage:${keyId}:d:${day}`,
    month: (month: string) => `${prefix}usage:${keyId}:m:${month}`,
    total: `${prefix}usage:${keyId}:total`,
    rateWindow: `${prefix}rl:${keyId}`,
  };
}

/** The rate window that all keys of an account share (common/auth/access-check.ts). */
export const accountRateWindowKey = (prefix: string, accountId: string) => `${prefix}rla:${accountId}`;

/**
 * The same names split around the key id, for the access script, which reads the id from the key
 * record: rate window = rateWindowBefore + id (the account's: accountRateWindowBefore + account id); day (month) counters = countersBefore + id + dayAfter
 * (monthAfter).
 */
export function usageKeysAroundId(prefix: string, buckets: UsageBuckets) {
  return {
    rateWindowBefore: `${prefix}rl:`,
    accountRateWindowBefore: accountRateWindowKey(prefix, ''),
    countersBefore: `${prefix}usage:`,
    dayAfter: `:d:${buckets.day}`,
    monthAfter: `:m:${buckets.month}`,
  };
}

export const dirtyKey = (prefix: string, day: string) => `${prefix}usage:dirty:${day}`;

/** Hash fields of the day/month/total hashes. Per-endpoint request counts are `ep:<METHOD> <route>`. */
export const usageFields = {
  requests: 'requests',
  rateLimited: 'rate_limited',
  endpointPrefix: 'ep:',
  listingsCreated: 'listings_created',
  listingsDuplicates: 'listings_duplicates',
  listingsFailed: 'listings_failed',
} as const;
