// Listing id claims against the real Redis, as a bulk request makes them (ingest/listings/admission.ts,
// with the claims of ingest/listings/seen-store.ts): a claim counts while its batch publishes (in
// flight) and after it published (duplicate), and a claim whose batch died no longer counts — the
// next request takes the id over.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { claimsKey, seenKey, seenStore } from '../../ingest/listings/seen-store.ts';
import { env, testRedis } from '../support/api.ts';

const prefix = env.REDIS_KEY_PREFIX;

/** A bulk request of a random account claiming `candidates` for batch `batchId`. */
function request(batchId: string, candidates: string[]) {
  const accountId = `acct_${randomUUID()}`;
  return {
    batch: {
      batch_id: batchId,
      account_id: accountId,
      is_test: false,
      total: candidates.length,
      duplicates: 0,
      failed_indexes: [],
    },
    owner: { accountId, mode: 'live' as const },
    candidates,
    limit: 10_000,
    at: new Date(),
  };
}

describe('listing id claims (happy)', () => {
  it('in flight until the batch publishes, then its duplicates, with one write for the batch', async () => {
    const redis = await testRedis();
    const [admission, seen] = [
      admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS),
      seenStore(redis, prefix),
    ];
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    const ids = Array.from({ length: 50 }, () => randomUUID());
    expect(await admission.admit(request(first, ids))).toEqual({
      kind: 'admitted',
      holders: ids.map(() => null),
      created: ids,
    });
    expect(await admission.admit(request(second, [randomUUID(), ...ids.slice(0, 2)]))).toEqual({
      kind: 'in_flight',
      positions: [1, 2],
    });
    expect(await seen.publishedHolders(ids.slice(0, 2))).toEqual([undefined, undefined]);

    await admission.confirm(ids, first);
    expect(await admission.admit(request(third, ids.slice(0, 1)))).toMatchObject({
      kind: 'admitted',
      holders: [{ batchId: first, inFlight: false }],
      created: [],
    });
    expect(await seen.publishedHolders([ids[0]!, randomUUID()])).toEqual([first, undefined]);
    // The ids' claims were not rewritten: the batch's claims key is what changed.
    expect(await redis.get(seenKey(prefix, ids[0]!))).toBe(`p:${first}`);
    expect(await redis.get(claimsKey(prefix, first))).toBe('published');
    expect(await redis.ttl(seenKey(prefix, ids[0]!))).toBeGreaterThan(29 * 24 * 3600);
  });

  it('a claim written before claims keys existed (the batch id alone) counts as published', async () => {
    const redis = await testRedis();
    const [admission, seen] = [
      admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS),
      seenStore(redis, prefix),
    ];
    const [old, next, id] = [randomUUID(), randomUUID(), randomUUID()];
    await redis.set(seenKey(prefix, id), old, 'EX', 60);
    expect(await admission.admit(request(next, [id]))).toMatchObject({
      kind: 'admitted',
      holders: [{ batchId: old, inFlight: false }],
    });
    expect(await seen.publishedHolders([id])).toEqual([old]);
  });
});

describe('listing id claims (error)', () => {
  it('a claim whose batch died (its claims key expired) is taken over by the next request', async () => {
    const redis = await testRedis();
    const [admission, seen] = [
      admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS),
      seenStore(redis, prefix),
    ];
    const [dead, next, id] = [randomUUID(), randomUUID(), randomUUID()];
    expect(await admission.admit(request(dead, [id]))).toMatchObject({ kind: 'admitted', created: [id] });
    expect(await redis.ttl(claimsKey(prefix, dead))).toBeLessThanOrEqual(60);
    await redis.del(claimsKey(prefix, dead)); // what the 60 s expiry does to a request that died
    expect(await seen.publishedHolders([id])).toEqual([undefined]);
    expect(await admission.admit(request(next, [id]))).toMatchObject({ kind: 'admitted', created: [id] });
    expect(await redis.get(seenKey(prefix, id))).toBe(`p:${next}`);
  });
});
