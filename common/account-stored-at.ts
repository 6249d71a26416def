// When an account's data last became complete in the warehouse: the Redis clock (microseconds) of
// the last time one of its batches completed. The batch script writes it in the same step that
// marks the batch completed (common/batches.ts); the analytics cache (analytics-api/cache.ts) does
// not serve an account an answer computed before it. So "completed" means the account's next
// analytics answer includes the batch (contract, "Batches"), even when an answer to the same
// question was cached just before.

/** Outlives the longest analytics cache lifetime (ANALYTICS_CACHE_TTL_SECONDS ≤ 3600). */
export const ACCOUNT_STORED_AT_TTL_SECONDS = 3600;

/** The key prefix; the account id follows it (the batch script appends it inside Redis). */
export const accountStoredAtPrefix = (keyPrefix: string) => `${keyPrefix}analytics:stored-at:`;

export const accountStoredAtKey = (keyPrefix: string, accountId: string) =>
  `${accountStoredAtPrefix(keyPrefix)}${accountId}`;
