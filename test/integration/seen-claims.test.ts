// Listing id claims (ingest/listings/seen-store.ts) against the real Redis: a claim counts while its
// batch publishes (in flight) and after it published (duplicate), and a claim whose batch died no
// longer counts — the next request takes the id over.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { claimsKey, seenKey, seenStore } from '../../ingest/listings/seen-store.ts';
import { env, testRedis } from '../support/api.ts';

const prefix = env.REDIS_KEY_PREFIX;

describe('listing id claims (happy)', () => {
  it('in flight until the batch publishes, then its duplicates, with one write for the batch', async () => {
    const seen = seenStore(await testRedis(), prefix);
    const [first, second] = [randomUUID(), randomUUID()];
    const ids = Array.from({ length: 50 }, () => randomUUID());
    expect(await seen.claim(ids, first)).toEqual(ids.map(() => null));
    expect(await seen.claim(ids.slice(0, 2), second)).toEqual([
      { batchId: first, inFlight: true },
      { batchId: first, inFlight: true },
    ]);
    expect(await seen.publishedHolders(ids.slice(0, 2))).toEqual([undefined, undefined]);

    await seen.confirm(ids, first);
    expect(await seen.claim(ids.slice(0, 1), second)).toEqual([{ batchId: first, inFlight: false }]);
    expect(await seen.publishedHolders([ids[0]!, randomUUID()])).toEqual([first, undefined]);
    // The ids' claims were not rewritten: the batch's claims key is what changed.
    const redis = await testRedis();
    expect(await redis.get(seenKey(prefix, ids[0]!))).toBe(`p:${first}`);
    expect(await redis.get(claimsKey(prefix, first))).toBe('published');
    expect(await redis.ttl(seenKey(prefix, ids[0]!))).toBeGreaterThan(29 * 24 * 3600);
  });

  it('a claim written before claims keys existed (the batch id alone) counts as published', async () => {
    const redis = await testRedis();
    const seen = seenStore(redis, prefix);
    const [old, next, id] = [randomUUID(), randomUUID(), randomUUID()];
    await redis.set(seenKey(prefix, id), old, 'EX', 60);
    expect(await seen.claim([id], next)).toEqual([{ batchId: old, inFlight: false }]);
    expect(await seen.publishedHolders([id])).toEqual([old]);
  });
});

describe('listing id claims (error)', () => {
  it('a claim whose batch died (its claims key expired) is taken over by the next request', async () => {
    const redis = await testRedis();
    const seen = seenStore(redis, prefix);
    const [dead, next, id] = [randomUUID(), randomUUID(), randomUUID()];
    expect(await seen.claim([id], dead)).toEqual([null]);
    expect(await redis.ttl(claimsKey(prefix, dead))).toBeLessThanOrEqual(60);
    await redis.del(claimsKey(prefix, dead)); // what the 60 s expiry does to a request that died
    expect(await seen.publishedHolders([id])).toEqual([undefined]);
    expect(await seen.claim([id], next)).toEqual([null]);
    expect(await redis.get(seenKey(prefix, id))).toBe(`p:${next}`);
  });
});
