// Fast-path duplicate detection in Redis. Two key families, both under the account's hash tag (a
// listing id is derived from its account, so the batch holding an id is always of that account, and
// a request's claims and the holders' claims keys share one slot):
// - `seen:<listing id>` (30 days): the claim of an id, `p:<batch>`, written for a whole request in one
//   Lua call when the request is admitted (the admission script, ingest/listings/admission.ts, with
//   claimSeenLua below);
// - `claims:<batch>`: whether that request's claims count — `pending` (60 s) until its Kafka publish
//   succeeded, then `published` (30 days).
// So the confirm after the publish is one write per request instead of one per listing (the per-id
// rewrite was ~4 µs of Redis CPU per listing: docs/decisions/0009-one-admission-script-one-confirm.md).
// A claim whose request died (its claims key expired, or was removed because the publish failed)
// no longer counts, and the next request for that id takes it over.
// Losing these keys is harmless for correctness: ids are deterministic and the stream skips ids it
// already stored; only the "duplicate" label in the response depends on them.
import type { Redis } from 'ioredis';
import { accountSpace } from '../../common/redis-keys/tags.ts';

export const SEEN_TTL_SECONDS = 30 * 24 * 3600;
/** How long a request has to publish before its claims no longer count. */
export const CLAIM_TTL_SECONDS = 60;
/** What starts the value of every claim: `p:<batch>`. */
export const PENDING_PREFIX = 'p:';
const PENDING = 'pending';
const PUBLISHED = 'published';

/** The claim of one listing id of `accountId`. */
export const seenKey = (prefix: string, accountId: string, listingId: string) =>
  `${accountSpace(prefix, accountId)}seen:${listingId}`;
/** Whether the claims of a batch of `accountId` count (`pending`, `published`, or gone). */
export const claimsKey = (prefix: string, accountId: string, batchId: string) =>
  `${accountSpace(prefix, accountId)}claims:${batchId}`;
/** The value of a claim by `batchId`. */
export const pendingClaim = (batchId: string) => `${PENDING_PREFIX}${batchId}`;

/**
 * Lua: claim_seen(key, claim, ttl, claims_of) claims one id unless a live claim holds it; returns
 * false when this call claimed it, the holder's batch id when that batch published, or the holder's
 * claim (`p:<batch>`) while it is still publishing. `claims_of` maps a holder's batch id to its
 * claims key (given in KEYS); for a holder it lacks, claim_seen returns {holder} and changes nothing:
 * the caller answers "retry with that holder's claims key". A value without the `p:` prefix is a
 * claim written before the claims keys existed, and counts as published.
 */
export const claimSeenLua = `
local function claim_seen(key, claim, ttl, claims_of)
  local v = redis.call('SET', key, claim, 'NX', 'GET', 'EX', ttl)
  if not v then return false end
  if string.sub(v, 1, ${PENDING_PREFIX.length}) ~= '${PENDING_PREFIX}' then return v end
  local holder = string.sub(v, ${PENDING_PREFIX.length + 1})
  local claims = claims_of[holder]
  if not claims then return {holder} end
  local state = redis.call('GET', claims)
  if state == '${PUBLISHED}' then return holder end
  if state == '${PENDING}' then return v end
  redis.call('SET', key, claim, 'EX', ttl)
  return false
end
`;

/** Lua: starts the claims of a batch (`pending` until confirmed). */
export const startClaimsLua = `
local function start_claims(key, ttl) redis.call('SET', key, '${PENDING}', 'EX', ttl) end
`;

/** Who already holds a listing id: the batch that created it, or one still publishing it. */
export interface SeenHolder {
  batchId: string;
  /**
   * Claimed by a request that has not published yet: the listing may never exist (its publish can
   * still fail), so it must not be reported as a duplicate (bulk-create.ts answers a retriable 409).
   */
  inFlight: boolean;
}

/** A holder as claim_seen answers it: a published batch id, or the claim of one still publishing. */
export function seenHolder(value: string): SeenHolder {
  return value.startsWith(PENDING_PREFIX)
    ? { batchId: value.slice(PENDING_PREFIX.length), inFlight: true }
    : { batchId: value, inFlight: false };
}

export function seenStore(redis: Redis, prefix: string) {
  return {
    /** The batch published: its claims count for the duplicate window (one write, whatever its size). */
    async confirm(accountId: string, listingIds: string[], batchId: string): Promise<void> {
      if (!listingIds.length) return;
      await redis.set(claimsKey(prefix, accountId, batchId), PUBLISHED, 'EX', SEEN_TTL_SECONDS);
    },

    /**
     * For each id, the batch of `accountId` that created it if that batch published, else undefined
     * (an id of another account has no claim among this account's: undefined).
     */
    async publishedHolders(accountId: string, listingIds: string[]): Promise<(string | undefined)[]> {
      if (!listingIds.length) return [];
      // One account's keys: one slot, so one MGET on a cluster too.
      const values = await redis.mget(listingIds.map((id) => seenKey(prefix, accountId, id)));
      const claimed = [
        ...new Set(
          values
            .filter((v): v is string => !!v?.startsWith(PENDING_PREFIX))
            .map((v) => v.slice(PENDING_PREFIX.length)),
        ),
      ];
      const states = claimed.length
        ? await redis.mget(claimed.map((b) => claimsKey(prefix, accountId, b)))
        : [];
      const published = new Set(claimed.filter((_, i) => states[i] === PUBLISHED));
      return values.map((v) => {
        if (!v) return undefined;
        if (!v.startsWith(PENDING_PREFIX)) return v;
        const batchId = v.slice(PENDING_PREFIX.length);
        return published.has(batchId) ? batchId : undefined;
      });
    },
  };
}

export type SeenStore = ReturnType<typeof seenStore>;
