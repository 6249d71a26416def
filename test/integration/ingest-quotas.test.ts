// Daily quotas per account and mode (docs/auth.md, "Quotas"): listings created and view
// events accepted per UTC day by tier, refused with 429 quota_exceeded past them; and the local
// Redis bounded by maxmemory (noeviction: refusing writes beats evicting keys).
import { describe, expect, it } from 'vitest';
import { tierPolicies } from '../../common/auth/tiers.ts';
import { api, createTestKey, sampleListing, testRedis } from '../support/api.ts';

const bulk = (key: string, listings: object[]) =>
  api('POST', '/api/v1/listings/bulk', { key, body: { listings } });

describe('daily quotas (error)', () => {
  it("refuses listings past the free tier's daily quota; duplicates are free, each mode has its own", async () => {
    const { key, account_id } = await createTestKey({ tier: 'free' });
    const quota = tierPolicies.free.listingsPerDay;
    let last: object[] = [];
    for (let created = 0; created < quota; created += 100) {
      last = Array.from({ length: 100 }, () => sampleListing());
      const response = await bulk(key, last);
      expect(response.status).toBe(201);
      expect(response.body.summary.created).toBe(100);
    }
    const retried = await bulk(key, last); // all duplicates: nothing new is stored
    expect(retried.status).toBe(201);
    expect(retried.body.summary.duplicates).toBe(100);

    const refused = await bulk(key, [sampleListing()]);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      retriable: true,
      details: { quota: 'listings_per_day', limit: quota, used: quota, requested: 1 },
    });
    expect(Date.parse(refused.body.error.details.resets_at)).toBeGreaterThan(Date.now());
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    const testKey = await createTestKey({ tier: 'free', mode: 'test', accountId: account_id });
    expect((await bulk(testKey.key, [sampleListing()])).status).toBe(201);
  });

  it("refuses view events past the free tier's daily quota, as a whole request", async () => {
    const { key } = await createTestKey({ tier: 'free' });
    const created = await bulk(key, [sampleListing()]);
    const listingId = created.body.results[0].listing_id as string;
    const quota = tierPolicies.free.viewEventsPerDay;
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ listing_id: listingId, viewer_id: `viewer-${from + i}` }));
    for (let sent = 0; sent < quota; sent += 1_000) {
      const response = await api('POST', '/api/v1/events/views', {
        key,
        body: { events: batch(sent, 1_000) },
      });
      expect(response.status).toBe(202);
      expect(response.body.accepted).toBe(1_000);
    }
    const refused = await api('POST', '/api/v1/events/views', { key, body: { events: batch(quota, 2) } });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      details: { quota: 'view_events_per_day', limit: quota, used: quota, requested: 2 },
    });
  });
});

describe('Redis memory bound (happy)', () => {
  it('runs the local Redis with maxmemory and noeviction', async () => {
    const redis = await testRedis();
    const [, maxmemory] = (await redis.config('GET', 'maxmemory')) as [string, string];
    const [, policy] = (await redis.config('GET', 'maxmemory-policy')) as [string, string];
    expect(Number(maxmemory)).toBeGreaterThan(0);
    expect(policy).toBe('noeviction');
  });
});
