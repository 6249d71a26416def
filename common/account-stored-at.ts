// When an account's data last became complete in the warehouse: the Redis clock (microseconds) of
// the last time one of its batches completed (common/batches.ts, in the script that marks it
// completed) or one of its status changes was stored (stream/lifecycle/handler.ts). The analytics
// cache (analytics-api/cache.ts) does not serve an account an answer computed before it. So
// "completed" means the account's next analytics answer includes the batch (contract, "Batches"),
// even when an answer to the same question was cached just before; likewise a status change once
// GET /listings/{id} shows it.
import type { Redis } from 'ioredis';
import { redisScript } from './clients/redis-script.ts';

/** Outlives the longest analytics cache lifetime (ANALYTICS_CACHE_TTL_SECONDS ≤ 3600). */
export const ACCOUNT_STORED_AT_TTL_SECONDS = 3600;

/** The key prefix; the account id follows it (the batch script appends it inside Redis). */
export const accountStoredAtPrefix = (keyPrefix: string) => `${keyPrefix}analytics:stored-at:`;

export const accountStoredAtKey = (keyPrefix: string, accountId: string) =>
  `${accountStoredAtPrefix(keyPrefix)}${accountId}`;

/**
 * Lua for the scripts that note it: `note_stored_at(key)` sets a stored-at key to Redis's clock now,
 * in microseconds (the cache compares it with the same clock's TIME).
 */
export const NOTE_STORED_AT_LUA = `
local function note_stored_at(key)
  local t = redis.call('TIME')
  redis.call('SET', key, t[1] .. string.format('%06d', tonumber(t[2])), 'EX', ${ACCOUNT_STORED_AT_TTL_SECONDS})
end
`;

const noteScript = redisScript(`${NOTE_STORED_AT_LUA}
for _, key in ipairs(KEYS) do note_stored_at(key) end
return #KEYS
`);

/** Notes that data of these accounts was just stored (after the insert that stored it). */
export async function noteAccountsStored(
  redis: Redis,
  keyPrefix: string,
  accountIds: Iterable<string>,
): Promise<void> {
  const keys = [...new Set(accountIds)].map((account) => accountStoredAtKey(keyPrefix, account));
  if (keys.length) await noteScript.run(redis, keys.length, ...keys);
}
