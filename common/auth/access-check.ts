// The hot path of every authenticated request, in ONE Redis round trip: look the key up by its
// hash, refuse revoked keys and rolled keys past their `expires_at`, apply the per-key rate limit
// and count usage, atomically in a Lua script. No read-then-write race is possible between
// processes, and because nothing is cached a revocation or expiry applies to the very next request
// everywhere (the expiry is compared with the request time here, so it needs no job).
//
// Rate limit: a fixed window per key that opens with the key's first request and lasts
// RATE_WINDOW_MS (INCR + PEXPIRE on Redis' own clock, so process clocks do not matter), and the
// same window per account beside it, so that several keys of one account cannot multiply its
// rate: a request needs room in both. The account's limit is its tier's (tiers.ts), or the key's
// own limit when that is higher (an enterprise key's `--rate-limit N`). Rejected requests consume
// neither window. Usage counters use UTC day/month buckets (common/usage).
//
// The script builds the counter key names from the key id it reads (around the id, the parts
// common/usage/keys.ts spells), which needs a single Redis node or a Redis Cluster with every key
// of one prefix on one slot (the prefix is a hash tag there: clients/redis.ts).
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { tierPolicies, tiers } from './tiers.ts';
import {
  bucketsOf,
  DAY_TTL_SECONDS,
  dirtyKey,
  DIRTY_TTL_SECONDS,
  MONTH_TTL_SECONDS,
  usageKeysAroundId,
} from '../usage/keys.ts';

export const RATE_WINDOW_MS = 60_000;

/** Each tier's account window, as the script reads it. */
const ACCOUNT_LIMITS_JSON = JSON.stringify(
  Object.fromEntries(tiers.map((tier) => [tier, tierPolicies[tier].accountRequestsPerMinute])),
);

// KEYS[1] key record hash, KEYS[2] the day's dirty set. ARGV: 1 endpoint label, 2 now ISO,
// 3 window ms, 4 day ttl, 5 month ttl, 6 dirty ttl, 7 rate window name before the key id,
// 8 counters' name before the key id, 9 day counters' name after it, 10 month counters' name after it,
// 11 account rate window name before the account id, 12 JSON {tier: account requests per window}.
// Returns {outcome, used, window_ttl_ms, record fields, account used, account limit, account ttl}:
// outcome 0 unknown, 1 allowed, 2 not active (revoked, or expired: ISO times from toISOString()
// order as text), 3 rate limited (key window), 4 rate limited (account window).
const accessScript = redisScript(`
local rec = redis.call('HGETALL', KEYS[1])
if #rec == 0 then return {0, 0, 0, rec} end
local f = {}
for i = 1, #rec, 2 do f[rec[i]] = rec[i + 1] end
if f['status'] ~= 'active' then return {2, 0, 0, rec} end
if f['expires_at'] and f['expires_at'] ~= '' and f['expires_at'] <= ARGV[2] then return {2, 0, 0, rec} end
local id = f['id']
local limit = tonumber(f['rate_limit']) or 60
local rl = ARGV[7] .. id
local dayKey = ARGV[8] .. id .. ARGV[9]
local monthKey = ARGV[8] .. id .. ARGV[10]
local arl = ARGV[11] .. (f['account_id'] or ('key:' .. id))
local accountLimit = math.max(tonumber(cjson.decode(ARGV[12])[f['tier']]) or limit, limit)
local used = tonumber(redis.call('GET', rl) or '0')
local accountUsed = tonumber(redis.call('GET', arl) or '0')
local outcome = 1
if used >= limit or accountUsed >= accountLimit then
  outcome = 3
  if used < limit then outcome = 4 end
  redis.call('HINCRBY', dayKey, 'rate_limited', 1)
  redis.call('HINCRBY', monthKey, 'rate_limited', 1)
else
  used = redis.call('INCR', rl)
  accountUsed = redis.call('INCR', arl)
  redis.call('HINCRBY', dayKey, 'requests', 1)
  redis.call('HINCRBY', dayKey, 'ep:' .. ARGV[1], 1)
  redis.call('HINCRBY', monthKey, 'requests', 1)
  redis.call('HINCRBY', monthKey, 'ep:' .. ARGV[1], 1)
  redis.call('HSET', KEYS[1], 'last_used_at', ARGV[2])
end
if redis.call('TTL', dayKey) < 0 then redis.call('EXPIRE', dayKey, ARGV[4]) end
if redis.call('TTL', monthKey) < 0 then redis.call('EXPIRE', monthKey, ARGV[5]) end
if redis.call('SADD', KEYS[2], id) == 1 and redis.call('TTL', KEYS[2]) < 0 then
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
local function windowTtl(name)
  local ttl = redis.call('PTTL', name)
  if ttl < 0 then
    redis.call('PEXPIRE', name, ARGV[3])
    ttl = tonumber(ARGV[3])
  end
  return ttl
end
return {outcome, used, windowTtl(rl), rec, accountUsed, accountLimit, windowTtl(arl)}
`);

export type AccessOutcome = 'unknown' | 'allowed' | 'inactive' | 'rate_limited';
const outcomes: AccessOutcome[] = ['unknown', 'allowed', 'inactive', 'rate_limited', 'rate_limited'];

/** A fixed rate window's state after the request: admitted requests, its limit, time left. */
export interface WindowState {
  used: number;
  limit: number;
  ttlMs: number;
}

export interface AccessResult {
  outcome: AccessOutcome;
  /** Requests admitted in the current window (after this one, when allowed). */
  used: number;
  /** Milliseconds until the current window closes. */
  windowTtlMs: number;
  /** The account's window (all its keys together); absent for unknown and inactive keys. */
  account?: WindowState;
  /** Which window refused a rate-limited request. */
  limitedBy?: 'key' | 'account';
  /** The stored key record (empty when unknown). */
  fields: Record<string, string>;
}

/** Runs the access script (EVALSHA, loading it once per Redis server on NOSCRIPT). */
export async function checkAccess(
  redis: Redis,
  prefix: string,
  recordKey: string,
  endpoint: string,
  now: Date,
): Promise<AccessResult> {
  const buckets = bucketsOf(now);
  const names = usageKeysAroundId(prefix, buckets);
  const args = [
    endpoint,
    now.toISOString(),
    RATE_WINDOW_MS,
    DAY_TTL_SECONDS,
    MONTH_TTL_SECONDS,
    DIRTY_TTL_SECONDS,
    names.rateWindowBefore,
    names.countersBefore,
    names.dayAfter,
    names.monthAfter,
    names.accountRateWindowBefore,
    ACCOUNT_LIMITS_JSON,
  ];
  const reply = await accessScript.run(redis, 2, recordKey, dirtyKey(prefix, buckets.day), ...args);
  const [code, used, ttl, flat, accountUsed, accountLimit, accountTtl] = reply as [
    number,
    number,
    number,
    string[],
    number?,
    number?,
    number?,
  ];
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  const result: AccessResult = { outcome: outcomes[code] ?? 'unknown', used, windowTtlMs: ttl, fields };
  if (accountUsed !== undefined && accountLimit !== undefined && accountTtl !== undefined) {
    result.account = { used: accountUsed, limit: accountLimit, ttlMs: accountTtl };
  }
  if (code === 3 || code === 4) result.limitedBy = code === 3 ? 'key' : 'account';
  return result;
}
