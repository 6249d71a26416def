// Daily quotas per account and mode (docs/auth.md, "Quotas"): listings created, view events and
// status updates accepted and snapshot external ids received per UTC day, by the calling key's
// tier, and keys created or rolled over the API (ingest/keys/service.ts) (common/auth/tiers.ts).
// They bound what one account can add to Redis and the warehouse in a day — Redis runs with
// maxmemory and noeviction, so unbounded growth from one key would end in every request of every
// account failing.
//
// One hash per account, mode and day, `<prefix>{a:<account>}:quota:<account>:<mode>:<YYYY-MM-DD>` (fields
// `listings`, `views`, `status_updates` of ingest/lifecycle/status-quota.ts, `snapshot_ids`, and
// `view_buckets` of ingest/views/view-guard.ts), kept 49 h so yesterday's is still readable.
// Reserving checks and adds in one script: concurrent requests on several processes can never
// together pass the quota.
import type { Redis } from 'ioredis';
import type { KeyMode } from '../common/auth/api-key-format.ts';
import { redisScript } from '../common/clients/redis-script.ts';
import { AppError } from '../common/errors.ts';
import { accountSpace } from '../common/redis-keys/tags.ts';

/** Today's hash stays until the end of tomorrow (UTC), whenever it was created. */
export const QUOTA_TTL_SECONDS = 49 * 3600;

export type QuotaKind =
  'listings' | 'views' | 'status_updates' | 'snapshot_ids' | 'key_changes' | 'kept_reply_bytes';

const quotaNames: Record<QuotaKind, { what: string; quota: string; field: string }> = {
  listings: { what: 'listings created', quota: 'listings_per_day', field: 'listings' },
  views: { what: 'view events accepted', quota: 'view_events_per_day', field: 'events' },
  status_updates: { what: 'status updates accepted', quota: 'status_updates_per_day', field: 'updates' },
  snapshot_ids: { what: 'snapshot external ids', quota: 'snapshot_ids_per_day', field: 'external_ids' },
  key_changes: { what: 'keys created or rolled', quota: 'key_changes_per_day', field: 'keys' },
  kept_reply_bytes: {
    what: 'bytes of kept replies',
    quota: 'kept_reply_bytes_per_day',
    field: 'Idempotency-Key',
  },
};

/**
 * Lua for scripts that reserve quota along with other work in the same call: `reserve_quota(key,
 * field, amount, limit)` returns {1, used after} when reserved, {0, used} when the amount does not fit.
 */
export const reserveQuotaLua = `
local function reserve_quota(key, field, amount, limit)
  local used = tonumber(redis.call('HGET', key, field) or '0')
  if used + amount > limit then return {0, used} end
  used = redis.call('HINCRBY', key, field, amount)
  if redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, ${QUOTA_TTL_SECONDS}) end
  return {1, used}
end
`;

// KEYS[1] quota hash; ARGV[1] field, ARGV[2] amount, ARGV[3] limit.
const reserveScript = redisScript(`${reserveQuotaLua}
return reserve_quota(KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
`);

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Under the account's hash tag, so scripts may touch it together with the account's other keys. */
export function quotaKey(prefix: string, accountId: string, mode: KeyMode, day: string): string {
  return `${accountSpace(prefix, accountId)}quota:${accountId}:${mode}:${day}`;
}

/** The next UTC midnight, when every daily quota starts again. */
export function nextReset(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}

export function quotaExceeded(
  kind: QuotaKind,
  detail: { limit: number; used: number; requested: number; at: Date },
): AppError {
  const { what, quota, field } = quotaNames[kind];
  const resetsAt = nextReset(detail.at);
  const retryAfterSeconds = Math.max(1, Math.ceil((resetsAt.getTime() - detail.at.getTime()) / 1000));
  const remaining = Math.max(0, detail.limit - detail.used);
  return new AppError(
    'quota_exceeded',
    `Daily quota of ${detail.limit} ${what} per account and mode reached (${remaining} left today, ` +
      `this request needs ${detail.requested}); it resets at 00:00 UTC`,
    {
      retriable: true,
      retryAfterSeconds,
      details: {
        quota,
        field,
        limit: detail.limit,
        used: detail.used,
        requested: detail.requested,
        resets_at: resetsAt.toISOString(),
      },
    },
  );
}

export function quotaStore(redis: Redis, prefix: string) {
  return {
    /** Adds `amount` to today's count of `kind`, or throws 429 quota_exceeded (nothing added). */
    async reserve(
      owner: { accountId: string; mode: KeyMode },
      kind: QuotaKind,
      amount: number,
      limit: number,
      at = new Date(),
    ): Promise<void> {
      if (amount <= 0) return;
      const key = quotaKey(prefix, owner.accountId, owner.mode, utcDay(at));
      const [ok, used] = (await reserveScript.run(redis, 1, key, kind, amount, limit)) as [number, number];
      if (ok !== 1) throw quotaExceeded(kind, { limit, used, requested: amount, at });
    },

    /** Gives back what a failed request reserved (its listings were never published). */
    async refund(owner: { accountId: string; mode: KeyMode }, kind: QuotaKind, amount: number, at: Date) {
      if (amount <= 0) return;
      await redis.hincrby(quotaKey(prefix, owner.accountId, owner.mode, utcDay(at)), kind, -amount);
    },
  };
}

export type QuotaStore = ReturnType<typeof quotaStore>;
