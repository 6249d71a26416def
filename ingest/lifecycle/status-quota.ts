// What status updates may cost (docs/auth.md, "Quotas"; docs/lifecycle.md): each accepted update
// becomes a history row and feeds the lifecycle views, so
//   - an account's accepted updates count against its tier's daily quota (per mode, UTC day):
//     a request whose admitted updates do not fit is refused whole with 429 quota_exceeded;
//   - one listing takes at most STATUS_CHANGES_PER_LISTING_DAY accepted updates per UTC day (by
//     receive time): past it an update fails on its own (`status_cap_reached`), the rest goes on.
// Both are decided in one script per request, atomically across processes: the account's count in
// its quota hash (ingest/quota.ts, field `status_updates`) and the per-listing counts in a hash per
// account, mode and day, `<prefix>{a:<account>}:status-changes:<account>:<mode>:<YYYY-MM-DD>` (one
// field per listing changed that day, so never more fields than the day's quota), kept 49 h like the
// quota; both under the account's hash tag, so the script's two keys share a slot on a cluster.
import type { Redis } from 'ioredis';
import type { KeyMode } from '../../common/auth/api-key-format.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import { accountSpace } from '../../common/redis-keys/tags.ts';
import { QUOTA_TTL_SECONDS, quotaExceeded, quotaKey, utcDay } from '../quota.ts';

/** Accepted status updates of one listing per UTC day; later ones fail with status_cap_reached. */
export const STATUS_CHANGES_PER_LISTING_DAY = 10;

const QUOTA_FIELD = 'status_updates';

export function statusChangesKey(prefix: string, accountId: string, mode: KeyMode, day: string): string {
  return `${accountSpace(prefix, accountId)}status-changes:${accountId}:${mode}:${day}`;
}

// KEYS[1] today's quota hash, KEYS[2] today's per-listing hash. ARGV: 1 quota field, 2 quota limit,
// 3 per-listing cap, 4 ttl, 5… the listing id of each update, in request order.
// Returns {admitted, quota used, then 1 (admitted) or 0 (capped) per update}, or {-1, quota used,
// what the request would have used} when that does not fit.
const admitScript = redisScript(`
local field, limit, cap, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local used = tonumber(redis.call('HGET', KEYS[1], field) or '0')
local counts, changed, marks, admitted = {}, {}, {}, 0
for i = 5, #ARGV do
  local id = ARGV[i]
  local count = counts[id] or tonumber(redis.call('HGET', KEYS[2], id) or '0')
  if count >= cap then
    marks[#marks + 1] = 0
  else
    count = count + 1
    changed[id] = true
    admitted = admitted + 1
    marks[#marks + 1] = 1
  end
  counts[id] = count
end
if used + admitted > limit then return { -1, used, admitted } end
if admitted > 0 then
  used = redis.call('HINCRBY', KEYS[1], field, admitted)
  for id in pairs(changed) do redis.call('HSET', KEYS[2], id, counts[id]) end
  for k = 1, 2 do
    if redis.call('TTL', KEYS[k]) < 0 then redis.call('EXPIRE', KEYS[k], ttl) end
  end
end
local out = { admitted, used }
for _, mark in ipairs(marks) do out[#out + 1] = mark end
return out
`);

// Gives back what admit counted for updates that were never published. Same keys; ARGV: 1 quota
// field, 2… the listing id of each update to give back.
const giveBackScript = redisScript(
  `
redis.call('HINCRBY', KEYS[1], ARGV[1], -(#ARGV - 1))
for i = 2, #ARGV do redis.call('HINCRBY', KEYS[2], ARGV[i], -1) end
return 1
`,
  { freesMemory: true },
);

interface Owner {
  accountId: string;
  mode: KeyMode;
}

export function statusQuota(redis: Redis, prefix: string) {
  const keysOf = (owner: Owner, at: Date) => {
    const day = utcDay(at);
    return [
      quotaKey(prefix, owner.accountId, owner.mode, day),
      statusChangesKey(prefix, owner.accountId, owner.mode, day),
    ];
  };
  return {
    /**
     * Counts the updates of `listingIds` (one entry per update, in order) that the per-listing cap
     * lets through; returns whether each was admitted. Throws 429 quota_exceeded, counting nothing,
     * when the admitted ones do not fit into today's quota (`limit`).
     */
    async admit(owner: Owner, listingIds: string[], limit: number, at = new Date()): Promise<boolean[]> {
      if (!listingIds.length) return [];
      const reply = (await admitScript.run(
        redis,
        2,
        ...keysOf(owner, at),
        QUOTA_FIELD,
        limit,
        STATUS_CHANGES_PER_LISTING_DAY,
        QUOTA_TTL_SECONDS,
        ...listingIds,
      )) as number[];
      const [admitted, used] = reply as [number, number];
      if (admitted < 0) throw quotaExceeded('status_updates', { limit, used, requested: reply[2]!, at });
      return reply.slice(2).map((mark) => mark === 1);
    },

    /** Gives back the counts of admitted updates whose publish failed (same `at` as admit). */
    async giveBack(owner: Owner, listingIds: string[], at: Date): Promise<void> {
      if (!listingIds.length) return;
      await giveBackScript.run(redis, 2, ...keysOf(owner, at), QUOTA_FIELD, ...listingIds);
    },
  };
}

export type StatusQuota = ReturnType<typeof statusQuota>;
