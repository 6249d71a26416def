// Cache-aside of analytics answers: a repeated question within the TTL is a Redis hit with the
// same answer; after the TTL (5 s in the test services) fresh data shows up. An account's completed
// batch (contract, "Batches") or stored status change is in its next answer at once, and only its
// own answers miss for it.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { answerCacheKey, createAnswerCache } from '../../analytics-api/cache.ts';
import { batchStore } from '../../common/batches.ts';
import { createLogger } from '../../common/logger.ts';
import { api, createTestKey, env, eventually, testRedis } from '../support/api.ts';
import { recordBatch } from '../support/batches.ts';
import { claimYear, insertListings } from '../support/analytics-fixtures.ts';
import { postStatus, pushListings, waitForStatus } from '../support/lifecycle.ts';

describe('analytics cache', () => {
  it('happy: serves a repeated question from the cache, then fresh data after the TTL', async () => {
    const year = await claimYear();
    const { key } = await createTestKey({ mode: 'test' });
    const path = `/api/v1/analytics/pricing?city=iringa&type=room&period=${year}-Q1`;
    const listing = (price_tzs: number) => ({
      is_test: 1 as const,
      listed_at: `${year}-02-01 00:00:00`,
      property_type: 'room',
      price_tzs,
      city: 'iringa',
      neighbourhood: 'Gangilonga',
    });
    await insertListings([listing(50_000)]);

    const first = await api('GET', path, { key });
    expect(first.status).toBe(200);
    expect(first.body.summary.total_listings).toBe(1);

    // The new listing is not in the cached answer, whoever asks.
    await insertListings([listing(70_000)]);
    const second = await api('GET', path, { key });
    expect(second.body).toEqual(first.body);

    const fresh = await eventually(async () => {
      const now = await api('GET', path, { key });
      return now.body.summary.total_listings === 2 ? now : undefined;
    });
    expect(fresh.body.summary.median_price_tzs).toBe(60_000);
  });

  it('security: says X-Cache only on answers cached per account, never that another account asked a market question', async () => {
    const year = await claimYear();
    const [asker, competitor] = await Promise.all([
      createTestKey({ mode: 'test' }),
      createTestKey({ mode: 'test' }),
    ]);
    const market = [
      `/api/v1/analytics/pricing?city=iringa&type=house&period=${year}-Q2`,
      `/api/v1/analytics/heatmap?bounds=35.6,-7.9,35.8,-7.7&type=house&period=${year}-Q2`,
      '/api/v1/analytics/seasonality?city=iringa&type=house',
    ];
    for (const path of market) {
      expect((await api('GET', path, { key: asker.key })).status, path).toBe(200);
      // The competitor's answer comes from the asker's entry, and does not say so.
      const theirs = await api('GET', path, { key: competitor.key });
      expect(theirs.status, path).toBe(200);
      expect(theirs.headers.get('x-cache'), path).toBeNull();
    }
    // Per account: one's own repeated question says hit.
    const own = '/api/v1/analytics/market-share?city=iringa&type=house';
    expect((await api('GET', own, { key: competitor.key })).headers.get('x-cache')).toBe('miss');
    expect((await api('GET', own, { key: competitor.key })).headers.get('x-cache')).toBe('hit');
  });

  it("happy: includes an account's batch in its next answer, even when the same question was cached just before", async () => {
    const { key } = await createTestKey({ mode: 'test', tier: 'enterprise', rateLimit: 10_000 });
    const path = '/api/v1/analytics/market-share?city=dar_es_salaam&type=studio';
    const before = await api('GET', path, { key });
    expect(before.status).toBe(200);
    expect(before.body.summary.own_listings).toBe(0);
    expect((await api('GET', path, { key })).headers.get('x-cache')).toBe('hit');

    // Completes within the 5 s lifetime of the cached answer (the test services' TTL).
    await pushListings(key, [{ property_type: 'studio' }, { property_type: 'studio' }]);
    const after = await api('GET', path, { key });
    expect(after.headers.get('x-cache')).toBe('miss');
    expect(after.body.summary.own_listings).toBe(2);
    expect((await api('GET', path, { key })).headers.get('x-cache')).toBe('hit');
  });

  it("happy: includes an account's status changes in its next answer once GET /listings/{id} shows them", async () => {
    const { key } = await createTestKey({ mode: 'test', tier: 'enterprise', rateLimit: 10_000 });
    const ids = await pushListings(key, [{ property_type: 'studio' }, { property_type: 'studio' }]);
    // Market share: the account's own counts always show (market figures may be suppressed).
    const path = '/api/v1/analytics/market-share?city=dar_es_salaam&type=studio';
    const before = await api('GET', path, { key });
    expect(before.status).toBe(200);
    expect(before.body.summary).toMatchObject({ own_listings: 2, own_rented: 0 });
    expect((await api('GET', path, { key })).headers.get('x-cache')).toBe('hit');

    const posted = await postStatus(
      key,
      ids.map((listing_id) => ({ listing_id, status: 'rented' })),
    );
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    await Promise.all(ids.map((id) => waitForStatus(key, id, 'rented')));
    const after = await api('GET', path, { key });
    expect(after.headers.get('x-cache')).toBe('miss');
    expect(after.body.summary).toMatchObject({ own_listings: 0, own_rented: 2 });
  });

  it('edge: serves other accounts the cached answer, and the batch owner one started after its completion', async () => {
    const redis = await testRedis();
    const cache = createAnswerCache({
      redis,
      keyPrefix: env.REDIS_KEY_PREFIX,
      parts: env.REDIS_GLOBAL_PARTS,
      ttlSeconds: 600,
      logger: createLogger('warn'),
    });
    const question = { key: `test-question:${randomUUID()}`, perAccount: false };
    const [owner, other] = [`acct_cache_${randomUUID()}`, `acct_cache_${randomUUID()}`];
    const batches = batchStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const complete = async (account: string) => {
      const batchId = randomUUID();
      const ids = [randomUUID()];
      await recordBatch(redis, env.REDIS_KEY_PREFIX, {
        batch_id: batchId,
        account_id: account,
        is_test: true,
        total: 1,
        duplicates: 0,
        failed_indexes: [],
        created_ids: ids,
      });
      expect(await batches.markStored(account, batchId, ids)).toBe(true);
    };

    /** The question asked for `account` (a miss computes `computed`): [answer, hit or miss]. */
    const ask = async (account: string, computed: string) => {
      const { value, cache: outcome } = await cache.getOrCompute(question, account, async () => computed);
      return [value, outcome];
    };

    expect(await ask(owner, 'first')).toEqual(['first', 'miss']);
    await complete(owner);
    expect(await ask(other, 'unused')).toEqual(['first', 'hit']);
    expect(await ask(owner, 'second')).toEqual(['second', 'miss']);
    expect(await ask(owner, 'unused')).toEqual(['second', 'hit']);

    // An answer whose computation started before the batch completed is not served to its owner.
    const entryKey = answerCacheKey(env.REDIS_KEY_PREFIX, question, other, env.REDIS_GLOBAL_PARTS);
    await redis.del(entryKey);
    let started!: () => void;
    let release!: () => void;
    const computing = new Promise<void>((resolve) => (started = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = cache.getOrCompute(question, other, async () => {
      started(); // the cache has read its clock by now
      await gate;
      return 'computed during the batch';
    });
    await computing;
    await complete(owner);
    release();
    expect((await slow).cache).toBe('miss');
    await eventually(async () => ((await redis.get(entryKey)) !== null ? true : undefined));
    expect(await ask(other, 'unused')).toEqual(['computed during the batch', 'hit']);
    expect(await ask(owner, 'after the batch')).toEqual(['after the batch', 'miss']);
  });
});
