// Listing id claims against the real Redis, as a bulk request makes them (ingest/listings/admission.ts,
// with the claims of ingest/listings/seen-store.ts): a claim counts while its batch publishes (in
// flight) and after it published (duplicate), and a claim whose batch died no longer counts — the
// next request takes the id over.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { claimsKey, seenKey, seenStore } from '../../ingest/listings/seen-store.ts';
import { keySlot } from '../../common/redis-keys/slot.ts';
import { quotaKey, utcDay } from '../../ingest/quota.ts';
import { env, testRedis } from '../support/api.ts';

const prefix = env.REDIS_KEY_PREFIX;

/** A bulk request of `accountId` (default: a random one) claiming `candidates` for batch `batchId`. */
function request(batchId: string, candidates: string[], accountId = `acct_${randomUUID()}`) {
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
    const account = `acct_${randomUUID()}`;
    const ids = Array.from({ length: 50 }, () => randomUUID());
    expect(await admission.admit(request(first, ids, account))).toEqual({
      kind: 'admitted',
      holders: ids.map(() => null),
      created: ids,
    });
    expect(await admission.admit(request(second, [randomUUID(), ...ids.slice(0, 2)], account))).toEqual({
      kind: 'in_flight',
      positions: [1, 2],
    });
    expect(await seen.publishedHolders(account, ids.slice(0, 2))).toEqual([undefined, undefined]);

    await admission.confirm(account, ids, first);
    expect(await admission.admit(request(third, ids.slice(0, 1), account))).toMatchObject({
      kind: 'admitted',
      holders: [{ batchId: first, inFlight: false }],
      created: [],
    });
    expect(await seen.publishedHolders(account, [ids[0]!, randomUUID()])).toEqual([first, undefined]);
    // The ids' claims were not rewritten: the batch's claims key is what changed.
    expect(await redis.get(seenKey(prefix, account, ids[0]!))).toBe(`p:${first}`);
    expect(await redis.get(claimsKey(prefix, account, first))).toBe('published');
    expect(await redis.ttl(seenKey(prefix, account, ids[0]!))).toBeGreaterThan(29 * 24 * 3600);
  });

  it('a claim written before claims keys existed (the batch id alone) counts as published', async () => {
    const redis = await testRedis();
    const [admission, seen] = [
      admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS),
      seenStore(redis, prefix),
    ];
    const [old, next, id] = [randomUUID(), randomUUID(), randomUUID()];
    const account = `acct_${randomUUID()}`;
    await redis.set(seenKey(prefix, account, id), old, 'EX', 60);
    expect(await admission.admit(request(next, [id], account))).toMatchObject({
      kind: 'admitted',
      holders: [{ batchId: old, inFlight: false }],
    });
    expect(await seen.publishedHolders(account, [id])).toEqual([old]);
  });

  it("one account's claims share a slot, another account's are elsewhere and independent", async () => {
    const redis = await testRedis();
    const admission = admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS);
    const [a, b] = [`acct_${randomUUID()}`, `acct_${randomUUID()}`];
    const [batchA, batchB, id] = [randomUUID(), randomUUID(), randomUUID()];
    const keysOf = (account: string, batch: string) => [
      seenKey(prefix, account, id),
      claimsKey(prefix, account, batch),
      quotaKey(prefix, account, 'live', utcDay(new Date())),
    ];
    expect(new Set(keysOf(a, batchA).map(keySlot)).size).toBe(1);
    expect(keySlot(seenKey(prefix, a, id))).not.toBe(keySlot(seenKey(prefix, b, id)));
    // The same id under two accounts (never made by the API: ids are derived from the account).
    expect(await admission.admit(request(batchA, [id], a))).toMatchObject({ created: [id] });
    expect(await admission.admit(request(batchB, [id], b))).toMatchObject({ created: [id] });
  });

  it('edge: a held id whose batch published later is found by a retry with its claims key', async () => {
    const redis = await testRedis();
    const admission = admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS);
    const account = `acct_${randomUUID()}`;
    const [first, second] = [randomUUID(), randomUUID()];
    const ids = [randomUUID(), randomUUID()];
    await admission.admit(request(first, ids, account));
    await admission.confirm(account, ids, first);
    const fresh = randomUUID();
    expect(await admission.admit(request(second, [ids[1]!, fresh, ids[0]!], account))).toEqual({
      kind: 'admitted',
      holders: [{ batchId: first, inFlight: false }, null, { batchId: first, inFlight: false }],
      created: [fresh],
    });
    // The claim call that met the unknown holder wrote nothing: only `fresh` is counted.
    expect(await redis.hget(quotaKey(prefix, account, 'live', utcDay(new Date())), 'listings')).toBe('3');
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
    const account = `acct_${randomUUID()}`;
    expect(await admission.admit(request(dead, [id], account))).toMatchObject({
      kind: 'admitted',
      created: [id],
    });
    expect(await redis.ttl(claimsKey(prefix, account, dead))).toBeLessThanOrEqual(60);
    await redis.del(claimsKey(prefix, account, dead)); // what the 60 s expiry does to a request that died
    expect(await seen.publishedHolders(account, [id])).toEqual([undefined]);
    expect(await admission.admit(request(next, [id], account))).toMatchObject({
      kind: 'admitted',
      created: [id],
    });
    expect(await redis.get(seenKey(prefix, account, id))).toBe(`p:${next}`);
  });
});

describe('a benchmark build without duplicate detection (happy)', () => {
  it('creates every listing however often it was sent, reserving its quota, and remembers none', async () => {
    const redis = await testRedis();
    const admission = admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS, { dedupe: false });
    const account = `acct_${randomUUID()}`;
    const ids = [randomUUID(), randomUUID()];
    const [first, second] = [randomUUID(), randomUUID()];
    for (const batchId of [first, second]) {
      expect(await admission.admit(request(batchId, ids, account))).toEqual({
        kind: 'admitted',
        holders: [null, null],
        created: ids,
      });
      await admission.confirm(account, ids, batchId);
    }
    expect(await redis.exists(...ids.map((id) => seenKey(prefix, account, id)))).toBe(0);
    const quota = quotaKey(prefix, account, 'live', utcDay(new Date()));
    expect(await redis.hget(quota, 'listings')).toBe('4');
    await expect(admission.admit({ ...request(randomUUID(), ids, account), limit: 5 })).rejects.toMatchObject(
      {
        code: 'quota_exceeded',
      },
    );
  });
});
