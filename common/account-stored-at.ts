// When an account's data last became complete in the warehouse: the Redis clock (microseconds) of
// the last time one of its batches completed (common/batches.ts, right after the script that marks
// it completed) or one of its status changes was stored (stream/lifecycle/handler.ts). The analytics
// cache (analytics-api/cache.ts) does not serve an account an answer computed before it. So
// "completed" means the account's next analytics answer includes the batch (contract, "Batches"),
// even when an answer to the same question was cached just before; likewise a status change once
// GET /listings/{id} shows it.
import type { Redis } from 'ioredis';
import { redisScript } from './clients/redis-script.ts';
import { accountSpace } from './redis-keys/tags.ts';

/** Outlives the longest analytics cache lifetime (ANALYTICS_CACHE_TTL_SECONDS ≤ 3600). */
export const ACCOUNT_STORED_AT_TTL_SECONDS = 3600;

/** Under the account's hash tag: a script that completes one of its batches can note it too. */
export const accountStoredAtKey = (keyPrefix: string, accountId: string) =>
  `${accountSpace(keyPrefix, accountId)}analytics:stored-at:${accountId}`;

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

// KEYS[1] one account's stored-at key.
const noteScript = redisScript(`${NOTE_STORED_AT_LUA}
note_stored_at(KEYS[1])
return 1
`);

/**
 * Notes that data of these accounts was just stored (after the insert that stored it). One call
 * per account (each mark has its account's slot), sent together. The marks are independent, so
 * their order does not matter: if the process dies between two, the caller has not committed what
 * it stored and notes them all again when it redoes it, and noting a mark again only makes the
 * account's cached answers recompute once more.
 */
export async function noteAccountsStored(
  redis: Redis,
  keyPrefix: string,
  accountIds: Iterable<string>,
): Promise<void> {
  await Promise.all(
    [...new Set(accountIds)].map((account) =>
      noteScript.run(redis, 1, accountStoredAtKey(keyPrefix, account)),
    ),
  );
}
