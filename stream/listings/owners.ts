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
//
// Cluster: a bucket is tagged by its id (`{o:<bucket>}`), so the owners spread over the masters.
// A batch's claims touch buckets of many slots; a claim is idempotent (HSETNX; HGET of the owner
// when it lost), so claims need no atomicity across buckets. On a single node they go as one
// script call per 2,000 claims; on a cluster, which refuses a script over many slots, as plain
// commands in one pipeline per master (ioredis sends a pipeline to one node: grouped by the node
// serving each key's slot). Not a script per slot there: that would cost a call per listing, and a
// pipeline per slot as many round trips (a rebuild's 20,000 claims timed out as 20,000
// one-command pipelines on a loaded cluster). Not the pipeline on a single node: with a command
// per claim (ioredis builds, times and parses each) the worker spent ~60 µs per listing against
// ~32 with the script (decision 0027).
import type { Cluster, Redis } from 'ioredis';
import { isCluster } from '../../common/clients/redis.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import { listingBucketSpace } from '../../common/redis-keys/tags.ts';
import { keySlot } from '../../common/redis-keys/slot.ts';

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

/** Claims per script call: bounds the time Redis spends in one script (~1 µs per claim). */
const CLAIMS_PER_CALL = 2_000;

// KEYS: buckets of one slot, one per id; ARGV: id, position per key. Removes claims still held by
// that position (compare and delete, so a claim another position won meanwhile stays).
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

/** The bucket of a listing id: its first five hex digits (1,048,576 buckets). */
const bucketOf = (listingId: string) => listingId.slice(0, 5);

/** The bucket hash that holds a listing's owner, tagged by its bucket. */
export const ownersBucketKey = (prefix: string, listingId: string) =>
  `${listingBucketSpace(prefix, bucketOf(listingId))}owners:v2`;

/** Indexes of `keys` grouped by `groupOf` (by slot unless given), in their order within each group. */
export function bySlot(
  keys: readonly string[],
  groupOf: (key: string) => number | string = keySlot,
): number[][] {
  const groups = new Map<number | string, number[]>();
  keys.forEach((key, index) => {
    const name = groupOf(key);
    const group = groups.get(name);
    if (group) group.push(index);
    else groups.set(name, [index]);
  });
  return [...groups.values()];
}

/**
 * The pipeline a key's command may share on a cluster: that of the nodes serving its slot (from
 * the client's slot map; the slot itself while the map lacks it).
 */
function pipelineOf(redis: Redis): (key: string) => number | string {
  const slots = (redis as unknown as Cluster).slots;
  return (key) => {
    const slot = keySlot(key);
    return slots[slot]?.join(',') ?? slot;
  };
}

/** How many times a claim is tried when its owner released it between HSETNX and HGET. */
const CLAIM_ATTEMPTS = 5;

export function listingOwners(redis: Redis, prefix: string) {
  /** One command per index, in one pipeline per node of the cluster; the replies by index. */
  async function pipelined(
    indexes: number[],
    keyOf: (index: number) => string,
    add: (pipeline: ReturnType<Redis['pipeline']>, index: number) => void,
  ): Promise<unknown[]> {
    const replies: unknown[] = [];
    const groups = bySlot(indexes.map(keyOf), pipelineOf(redis)).map((g) => g.map((j) => indexes[j]!));
    await Promise.all(
      groups.map(async (group) => {
        const pipeline = redis.pipeline();
        for (const index of group) add(pipeline, index);
        const results = (await pipeline.exec()) ?? [];
        results.forEach(([error, reply], j) => {
          if (error) throw error;
          replies[group[j]!] = reply;
        });
      }),
    );
    return replies;
  }

  /** A single node's claims: HSETNX, else HGET, inside one script call per CLAIMS_PER_CALL. */
  async function claimOnSingleNode(claims: Claim[]): Promise<string[]> {
    const owners: string[] = [];
    for (let i = 0; i < claims.length; i += CLAIMS_PER_CALL) {
      const chunk = claims.slice(i, i + CLAIMS_PER_CALL);
      const reply = await claimScript.runOnSingleNode(
        redis,
        chunk.length,
        ...chunk.map((c) => ownersBucketKey(prefix, c.listingId)),
        ...chunk.flatMap((c) => [c.listingId, c.position]),
      );
      owners.push(...(reply as string[]));
    }
    return owners;
  }

  return {
    /** The owning position of each claimed id: the claim's own position when it won. */
    async claim(claims: Claim[]): Promise<string[]> {
      if (!isCluster(redis)) return claimOnSingleNode(claims);
      const owners: string[] = new Array<string>(claims.length);
      const keyOf = (i: number) => ownersBucketKey(prefix, claims[i]!.listingId);
      let pending = claims.map((_, i) => i);
      for (let attempt = 1; pending.length; attempt++) {
        if (attempt > CLAIM_ATTEMPTS) throw new Error('listing owners: claims released while being read');
        const won = await pipelined(pending, keyOf, (p, i) =>
          p.hsetnx(keyOf(i), claims[i]!.listingId, claims[i]!.position),
        );
        const lost = pending.filter((i) => won[i] !== 1);
        for (const i of pending) if (won[i] === 1) owners[i] = claims[i]!.position;
        const held = await pipelined(lost, keyOf, (p, i) => p.hget(keyOf(i), claims[i]!.listingId));
        for (const i of lost) if (typeof held[i] === 'string') owners[i] = held[i];
        pending = lost.filter((i) => typeof held[i] !== 'string'); // released meanwhile: claim again
      }
      return owners;
    },
    /** Gives claims back (rows ClickHouse refused); a claim held by another position stays. */
    async release(claims: Claim[]): Promise<void> {
      const keys = claims.map((c) => ownersBucketKey(prefix, c.listingId));
      await Promise.all(
        bySlot(keys).map((group) => {
          const args = group.flatMap((i) => [claims[i]!.listingId, claims[i]!.position]);
          return releaseScript.run(redis, group.length, ...group.map((i) => keys[i]!), ...args);
        }),
      );
    },
  };
}

export type ListingOwners = ReturnType<typeof listingOwners>;

/**
 * A benchmark build's owners (common/bench-build.ts): every claim wins, nothing is recorded, so an
 * id sent again from another position is stored again. Never in a service otherwise.
 */
export function noOwners(): ListingOwners {
  return {
    claim: (claims) => Promise.resolve(claims.map((c) => c.position)),
    release: () => Promise.resolve(),
  };
}

/**
 * The rebuild's marker and the lock one worker rebuilds under: single keys, each its own tag. A
 * layout change ("v2": five hex digits per bucket) needs a rebuild, so the marker names the layout.
 */
export const ownersRebuildKeys = (prefix: string) => ({
  marker: `${prefix}{owners:v2:built}`,
  lock: `${prefix}{owners:rebuilding}`,
});

/**
 * Moves a bucket of the previous release's layout (`owners:v2:<bucket>` under the prefix) into its
 * tagged bucket: merges its claims (HSETNX, so a claim a worker of this release made meanwhile
 * stays), then deletes it. Idempotent.
 */
export async function moveLegacyOwnersBucket(redis: Redis, prefix: string, oldKey: string): Promise<void> {
  const bucket = /owners:v2:([0-9a-f]{5})$/.exec(oldKey)?.[1];
  if (!bucket) return;
  const claims = await redis.hgetall(oldKey);
  const key = ownersBucketKey(prefix, bucket);
  const pipeline = redis.pipeline();
  for (const [listingId, position] of Object.entries(claims)) pipeline.hsetnx(key, listingId, position);
  for (const [error] of (await pipeline.exec()) ?? []) if (error) throw error;
  await redis.del(oldKey);
}

export function positionOf(p: { _partition: number; _offset: string; _item: number }): string {
  return `${p._partition}:${p._offset}:${p._item}`;
}
