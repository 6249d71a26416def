// Listing owners: which Kafka position (partition:offset:item of rls.listings.v1) stores each
// listing id. The listings handler claims the ids of a batch before inserting; a position that finds
// its id owned by another position skips it as a duplicate (a listing published twice: an API retry
// after a publish that timed out but went through, a re-push after the API's 30-day duplicate window,
// another producer). Why not ask ClickHouse: a lookup of random ids in `listing_lookup` reads about
// one granule per id and per part, ~60 µs of ClickHouse CPU per id at 4.7 M listings (6× the insert
// of the row) and growing with the table; a Redis claim is O(1).
//
// Effectively once: a claim is made before the insert, so a crash in between leaves an owner whose
// rows are missing. Its position is not committed, so it is consumed again (same partition), finds
// itself the owner and stores them; every other position keeps skipping the id. Rows ClickHouse
// refuses (quarantined) release their claim, so a corrected copy can be stored later.
//
// Storage: hashes of 1,048,576 buckets by the id's first five hex digits (small hashes use Redis'
// compact listpack encoding), no TTL. Rebuilt from ClickHouse when Redis lost them (owners-rebuild.ts).
// Why that many: a claim into a listpack costs time in proportion to its length (HSETNX measured at
// 1.3 µs with 10–30 entries, 3.4 µs with 100, 6.6 with 300, 9.6 with 500). 65,536 buckets would
// hold ~300 entries each at 20 M listings; a million stay ≤ 32 up to 33 M listings, for
// ~90 MB more Redis at 4 M listings (measured; docs/scaling.md, "Redis sizing").
import type { Redis } from 'ioredis';
import { redisScript } from '../../common/clients/redis-script.ts';

// KEYS: one bucket per id; ARGV: the id, then the claiming position, per key. Returns the owner per id.
const claimScript = redisScript(`
local owners = {}
for i = 1, #KEYS do
  local id, position = ARGV[2 * i - 1], ARGV[2 * i]
  if redis.call('HSETNX', KEYS[i], id, position) == 1 then owners[i] = position
  else owners[i] = redis.call('HGET', KEYS[i], id) end
end
return owners
`);

// KEYS: one bucket per id; ARGV: id, position. Removes claims still held by that position.
const releaseScript = redisScript(
  `
for i = 1, #KEYS do
  local id, position = ARGV[2 * i - 1], ARGV[2 * i]
  if redis.call('HGET', KEYS[i], id) == position then redis.call('HDEL', KEYS[i], id) end
end
return 1
`,
  { freesMemory: true },
);

export interface Claim {
  listingId: string;
  position: string;
}

/** Claims per script call: bounds the time Redis spends in one script (~1 µs per id). */
const CLAIMS_PER_CALL = 2_000;

/** The bucket hash that holds a listing's owner: the first five hex digits of its id. */
export const ownersBucketKey = (prefix: string, listingId: string) =>
  `${ownersKeyPrefix(prefix)}${listingId.slice(0, 5)}`;

export function listingOwners(redis: Redis, prefix: string) {
  const bucket = (listingId: string) => ownersBucketKey(prefix, listingId);
  /** Runs `script` over `claims` in calls of CLAIMS_PER_CALL; returns the concatenated replies. */
  async function inChunks(script: typeof claimScript, claims: Claim[]): Promise<string[]> {
    const replies: string[] = [];
    for (let i = 0; i < claims.length; i += CLAIMS_PER_CALL) {
      const chunk = claims.slice(i, i + CLAIMS_PER_CALL);
      const args = [
        ...chunk.map((c) => bucket(c.listingId)),
        ...chunk.flatMap((c) => [c.listingId, c.position]),
      ];
      const reply = await script.run(redis, chunk.length, ...args);
      if (Array.isArray(reply)) replies.push(...(reply as string[]));
    }
    return replies;
  }
  return {
    /** The owning position of each claimed id: the claim's own position when it won. */
    claim: (claims: Claim[]): Promise<string[]> => inChunks(claimScript, claims),
    async release(claims: Claim[]): Promise<void> {
      await inChunks(releaseScript, claims);
    },
  };
}

export type ListingOwners = ReturnType<typeof listingOwners>;

/**
 * Keys of the layout ("v2": five hex digits per bucket). A layout change needs a rebuild, so the
 * "built" marker lives under the layout too (owners-rebuild.ts).
 */
const ownersKeyPrefix = (prefix: string) => `${prefix}owners:v2:`;

/** The rebuild's marker (under the layout) and the lock one worker rebuilds under. */
export const ownersRebuildKeys = (prefix: string) => ({
  marker: `${ownersKeyPrefix(prefix)}built`,
  lock: `${prefix}owners:rebuilding`,
});

export function positionOf(p: { _partition: number; _offset: string; _item: number }): string {
  return `${p._partition}:${p._offset}:${p._item}`;
}
