// The hot path of every authenticated request: look the key up by its hash, refuse revoked keys and
// rolled keys past their `expires_at`, apply the per-key rate limit and count usage, atomically in
// one Lua script on the key's slot (its record, rate window and counters share its hash tag). No
// read-then-write race is possible between processes, and because nothing is cached a revocation
// or expiry applies to the very next request everywhere (the expiry is compared with the request
// time here, so it needs no job).
//
// Rate limit: a fixed window per key that opens with the key's first request and lasts
// RATE_WINDOW_MS (INCR + PEXPIRE on Redis' own clock, so process clocks do not matter), and the
// same window per account beside it, so that several keys of one account cannot multiply its
// rate: a request needs room in both. The account's limit is its tier's (tiers.ts), or the key's
// own limit when that is higher (an enterprise key's `--rate-limit N`).
//
// The account's window is under the account's tag, another slot, so it is a second script, run
// only for a request the key's window admitted (one more round trip for admitted requests; an
// unknown, revoked or key-limited request costs one). When the account's window refuses, a third
// script gives the key's window its request back and counts it as rate limited instead. So a
// rejected request still consumes neither window, except for that moment: a request of the same key
// between the two scripts sees one request more in the key's window (it would be refused by the
// account's full window anyway, fixed windows do not reopen early), and if the process dies before
// giving it back the key's window keeps it until it closes. The account's window is never consumed
// by a refused request. Usage counters use UTC day/month buckets (common/usage).
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { tierPolicies } from './tiers.ts';
import {
  accountRateWindowKey,
  bucketsOf,
  DAY_TTL_SECONDS,
  MONTH_TTL_SECONDS,
  usageFields,
  usageKeys,
} from '../usage/keys.ts';
import type { DirtyMarker } from '../usage/dirty.ts';
import type { Logger } from '../logger.ts';

export const RATE_WINDOW_MS = 60_000;

/** Returns a window's time left in ms, opening it (PEXPIRE) when it has no expiry yet. */
const windowTtlLua = `
local function windowTtl(name, ms)
  local ttl = redis.call('PTTL', name)
  if ttl < 0 then
    redis.call('PEXPIRE', name, ms)
    ttl = tonumber(ms)
  end
  return ttl
end
`;

// KEYS[1] key record hash, KEYS[2] its rate window, KEYS[3] its day counters, KEYS[4] its month
// counters. ARGV: 1 endpoint label, 2 now ISO, 3 window ms, 4 day ttl, 5 month ttl.
// Returns {outcome, used, window_ttl_ms, record fields}: outcome 0 unknown, 1 admitted by the key's
// window (counted), 2 not active (revoked, or expired: ISO times from toISOString() order as text),
// 3 rate limited by the key's window (counted as such).
const keyScript = redisScript(`${windowTtlLua}
local rec = redis.call('HGETALL', KEYS[1])
if #rec == 0 then return {0, 0, 0, rec} end
local f = {}
for i = 1, #rec, 2 do f[rec[i]] = rec[i + 1] end
if f['status'] ~= 'active' then return {2, 0, 0, rec} end
if f['expires_at'] and f['expires_at'] ~= '' and f['expires_at'] <= ARGV[2] then return {2, 0, 0, rec} end
local limit = tonumber(f['rate_limit']) or 60
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local outcome = 1
if used >= limit then
  outcome = 3
  redis.call('HINCRBY', KEYS[3], '${usageFields.rateLimited}', 1)
  redis.call('HINCRBY', KEYS[4], '${usageFields.rateLimited}', 1)
else
  used = redis.call('INCR', KEYS[2])
  redis.call('HINCRBY', KEYS[3], '${usageFields.requests}', 1)
  redis.call('HINCRBY', KEYS[3], '${usageFields.endpointPrefix}' .. ARGV[1], 1)
  redis.call('HINCRBY', KEYS[4], '${usageFields.requests}', 1)
  redis.call('HINCRBY', KEYS[4], '${usageFields.endpointPrefix}' .. ARGV[1], 1)
  redis.call('HSET', KEYS[1], 'last_used_at', ARGV[2])
end
if redis.call('TTL', KEYS[3]) < 0 then redis.call('EXPIRE', KEYS[3], ARGV[4]) end
if redis.call('TTL', KEYS[4]) < 0 then redis.call('EXPIRE', KEYS[4], ARGV[5]) end
return {outcome, used, windowTtl(KEYS[2], ARGV[3]), rec}
`);

// KEYS[1] the account's rate window. ARGV: 1 its limit, 2 window ms.
// Returns {1 admitted (counted) or 0 refused, used, window_ttl_ms}.
const accountScript = redisScript(`${windowTtlLua}
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then return {0, used, windowTtl(KEYS[1], ARGV[2])} end
used = redis.call('INCR', KEYS[1])
return {1, used, windowTtl(KEYS[1], ARGV[2])}
`);

// Gives the key's window back a request the account's window refused (or that failed there), and
// uncounts it as admitted. KEYS as keyScript's. ARGV: 1 endpoint label, 2 the window's time left
// that keyScript answered (a window with more left is a newer one: nothing to give back), 3 now ISO
// (the last_used_at keyScript wrote), 4 the last_used_at before it ('' = none), 5 '1' to count it
// as rate limited instead.
const refundScript = redisScript(
  `
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 and ttl <= tonumber(ARGV[2]) and tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then
  redis.call('DECR', KEYS[2])
end
for i = 3, 4 do
  redis.call('HINCRBY', KEYS[i], '${usageFields.requests}', -1)
  if redis.call('HINCRBY', KEYS[i], '${usageFields.endpointPrefix}' .. ARGV[1], -1) <= 0 then
    redis.call('HDEL', KEYS[i], '${usageFields.endpointPrefix}' .. ARGV[1])
  end
  if ARGV[5] == '1' then redis.call('HINCRBY', KEYS[i], '${usageFields.rateLimited}', 1) end
end
if redis.call('HGET', KEYS[1], 'last_used_at') == ARGV[3] then
  if ARGV[4] == '' then redis.call('HDEL', KEYS[1], 'last_used_at')
  else redis.call('HSET', KEYS[1], 'last_used_at', ARGV[4]) end
end
return 1
`,
);

export type AccessOutcome = 'unknown' | 'allowed' | 'inactive' | 'rate_limited';
const outcomes: AccessOutcome[] = ['unknown', 'allowed', 'inactive', 'rate_limited'];

/** A fixed rate window's state after the request: admitted requests, its limit, time left. */
export interface WindowState {
  used: number;
  limit: number;
  ttlMs: number;
}

export interface AccessResult {
  outcome: AccessOutcome;
  /** Requests admitted in the key's current window (after this one, when allowed). */
  used: number;
  /** Milliseconds until the key's current window closes. */
  windowTtlMs: number;
  /** The account's window (all its keys together); absent unless the key's window admitted. */
  account?: WindowState;
  /** Which window refused a rate-limited request. */
  limitedBy?: 'key' | 'account';
  /** The stored key record (empty when unknown). */
  fields: Record<string, string>;
}

/** The account's limit for a key: its tier's, or the key's own when that is higher. */
export function accountLimitOf(fields: Record<string, string>): number {
  const keyLimit = Number(fields.rate_limit) || 60;
  const tierLimit = tierPolicies[fields.tier as keyof typeof tierPolicies]?.accountRequestsPerMinute;
  return Math.max(tierLimit ?? keyLimit, keyLimit);
}

/** Runs the access check of the key hashed `keyHash` (scripts by EVALSHA, loaded on NOSCRIPT). */
export async function checkAccess(
  redis: Redis,
  prefix: string,
  recordKey: string,
  keyHash: string,
  endpoint: string,
  now: Date,
  markDirty: DirtyMarker,
  /** Where the steps that may fail without failing the request say so (the process's logger). */
  logger?: Logger,
): Promise<AccessResult> {
  const buckets = bucketsOf(now);
  const names = usageKeys(prefix, keyHash);
  const keys = [recordKey, names.rateWindow, names.day(buckets.day), names.month(buckets.month)];
  const nowIso = now.toISOString();
  const reply = await keyScript.run(
    redis,
    keys.length,
    ...keys,
    endpoint,
    nowIso,
    RATE_WINDOW_MS,
    DAY_TTL_SECONDS,
    MONTH_TTL_SECONDS,
  );
  const [code, used, ttl, flat] = reply as [number, number, number, string[]];
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  const result: AccessResult = { outcome: outcomes[code] ?? 'unknown', used, windowTtlMs: ttl, fields };
  if (code === 3) result.limitedBy = 'key';
  if (code !== 1 && code !== 3) return result;
  // Counters changed: the day's dirty set learns of the key (in parallel with the account window).
  // Its part may be on another master: when that fails the request still stands, and the key's
  // next request marks it (the marker remembers only marks that were made).
  const marked = markDirty(buckets.day, keyHash).catch((error: unknown) =>
    logger?.warn('usage: marking the key for the day failed; its next request marks it', {
      error: String(error),
    }),
  );
  if (code === 3) {
    await marked;
    return result;
  }
  const accountLimit = accountLimitOf(fields);
  const refund = (asRateLimited: boolean) =>
    refundScript.run(
      redis,
      keys.length,
      ...keys,
      endpoint,
      ttl,
      nowIso,
      fields.last_used_at ?? '',
      asRateLimited ? '1' : '0',
    );
  const [[admitted, accountUsed, accountTtl]] = await Promise.all([
    (
      accountScript.run(
        redis,
        1,
        accountRateWindowKey(prefix, fields.account_id ?? `key:${fields.id}`),
        accountLimit,
        RATE_WINDOW_MS,
      ) as Promise<[number, number, number]>
    ).catch(async (error: unknown) => {
      // The account's master failed (the request is answered 503): give the key's request back
      // if its own master still answers.
      await refund(false).catch((refundError: unknown) =>
        logger?.warn("rate limit: giving the key's request back failed; its window counts it", {
          error: String(refundError),
        }),
      );
      throw error;
    }),
    marked,
  ]);
  result.account = { used: accountUsed, limit: accountLimit, ttlMs: accountTtl };
  if (admitted === 1) return result;
  await refund(true);
  return { ...result, outcome: 'rate_limited', limitedBy: 'account', used: used - 1 };
}
