// The daily quota of point rent estimates (docs/auth.md, "Quotas"): distinct H3 cells per account,
// mode and UTC day, by the calling key's tier (common/auth/tiers.ts, estimateCellsPerDay). Each
// cell's answer is the same for every point in it (common/estimate/search-centre.ts), so asking the same cell
// again is free; what the quota bounds is how many search centres an account can compare in a day,
// which is what locating another account's listing from distance bands needs.
//
// One set per account, mode and day, `<prefix>{a:<account>}:estimate-cells:<account>:<mode>:<day>`, kept
// 49 h like the other daily quotas; checked and added in one script, so concurrent requests on
// several processes can never together pass the quota. It holds at most the quota's cells.
import type { Redis } from 'ioredis';
import type { KeyMode } from '../common/auth/api-key-format.ts';
import { dailyQuota, type Tier } from '../common/auth/tiers.ts';
import { redisScript } from '../common/clients/redis-script.ts';
import { AppError } from '../common/errors.ts';
import { accountSpace } from '../common/redis-keys/tags.ts';

const TTL_SECONDS = 49 * 3600;

// KEYS[1] the day's set; ARGV[1] cell, ARGV[2] limit, ARGV[3] TTL. Returns {1, used} when the
// cell was counted already or fits, {0, used} when it would pass the limit (nothing added).
const reserveCellScript = redisScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, redis.call('SCARD', KEYS[1])} end
local used = redis.call('SCARD', KEYS[1])
if used >= tonumber(ARGV[2]) then return {0, used} end
redis.call('SADD', KEYS[1], ARGV[1])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3])) end
return {1, used + 1}
`);

export function estimateCellsKey(prefix: string, accountId: string, mode: KeyMode, at: Date): string {
  return `${accountSpace(prefix, accountId)}estimate-cells:${accountId}:${mode}:${at.toISOString().slice(0, 10)}`;
}

export interface EstimateCaller {
  account_id: string;
  mode: KeyMode;
  tier: Tier;
  rate_limit: number;
}

export function estimateQuota(redis: Redis, prefix: string) {
  return {
    /** Counts `cell` for the caller today, or throws 429 quota_exceeded when it is one too many. */
    async reserveCell(caller: EstimateCaller, cell: string, at = new Date()): Promise<void> {
      const limit = dailyQuota(caller, 'estimateCellsPerDay');
      const key = estimateCellsKey(prefix, caller.account_id, caller.mode, at);
      const [ok, used] = (await reserveCellScript.run(redis, 1, key, cell, limit, TTL_SECONDS)) as [
        number,
        number,
      ];
      if (ok !== 1) throw cellsExceeded(limit, used, at);
    },
  };
}

export type EstimateQuota = ReturnType<typeof estimateQuota>;

function cellsExceeded(limit: number, used: number, at: Date): AppError {
  const resetsAt = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
  return new AppError(
    'quota_exceeded',
    `Daily quota of ${limit} distinct estimate cells per account and mode reached: estimates for ` +
      'cells asked today still answer; a new cell waits for 00:00 UTC',
    {
      retriable: true,
      retryAfterSeconds: Math.max(1, Math.ceil((resetsAt.getTime() - at.getTime()) / 1000)),
      details: {
        quota: 'estimate_cells_per_day',
        field: 'lat,lng',
        limit,
        used,
        requested: 1,
        resets_at: resetsAt.toISOString(),
      },
    },
  );
}
