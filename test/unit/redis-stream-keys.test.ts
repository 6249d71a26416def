// Where the stream's Redis keys live on a Redis Cluster: the listing owners by listing-id bucket, the
// in-flight marks per partition and each job lock under a tag of its own, the worker registry's two
// keys under one tag (a transaction writes both). No Redis needed: slots are computed.
import { describe, expect, it } from 'vitest';
import { hashTagOf, keySlot } from '../../common/redis-keys/slot.ts';
import { workerRegistryKeys } from '../../common/worker-registry.ts';
import { inflightKey } from '../../stream/inflight-marks.ts';
import { jobLockKey } from '../../stream/jobs/schedule.ts';
import { bySlot, ownersBucketKey, ownersRebuildKeys } from '../../stream/listings/owners.ts';

const prefix = 'rls:';

describe('stream keys on a cluster', () => {
  it('happy: a listing owner is tagged by its id bucket, so buckets spread over slots', () => {
    expect(hashTagOf(ownersBucketKey(prefix, '0a1b2c3d-0000'))).toBe('o:0a1b2');
    expect(ownersBucketKey(prefix, '0a1b2ffff')).toBe(ownersBucketKey(prefix, '0a1b2c3d'));
    const slots = new Set(
      Array.from({ length: 256 }, (_, i) => keySlot(ownersBucketKey(prefix, `${i.toString(16)}0000`))),
    );
    expect(slots.size).toBeGreaterThan(240);
  });

  it('happy: claims are grouped by slot, each group in its callers order', () => {
    const keys = ['a', 'b', 'a', 'c', 'b'].map((id) => ownersBucketKey(prefix, `${id}0000`));
    const groups = bySlot(keys);
    expect(groups.map((g) => g.map((i) => keys[i]))).toEqual(
      groups.map((g) => g.map(() => keys[g[0]!])), // one key (one slot) per group
    );
    expect(groups.flat().sort()).toEqual([0, 1, 2, 3, 4]);
    expect(groups.find((g) => g.includes(0))).toEqual([0, 2]);
  });

  it('happy: each partition and each job time is a key of its own tag; the registry is one slot', () => {
    const partitions = Array.from({ length: 12 }, (_, p) => inflightKey(prefix, 'rls-stream', 't', p));
    expect(partitions.every((key) => hashTagOf(key)?.startsWith('inflight:'))).toBe(true);
    expect(new Set(partitions.map(keySlot)).size).toBeGreaterThan(6);
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const locks = [1, 2, 3].map((minute) => jobLockKey(prefix, 'usage-rollup', at(minute)));
    expect(locks.every((key) => hashTagOf(key)?.startsWith('job:usage-rollup:'))).toBe(true);
    const { beats, details } = workerRegistryKeys(prefix);
    expect(hashTagOf(beats)).toBe('workers');
    expect(keySlot(details)).toBe(keySlot(beats));
    const { marker, lock } = ownersRebuildKeys(prefix);
    expect([hashTagOf(marker), hashTagOf(lock)]).toEqual(['owners:v2:built', 'owners:rebuilding']);
  });
});
