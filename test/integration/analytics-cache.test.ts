// Cache-aside of analytics answers: a repeated question within the TTL is a Redis hit with the
// same answer; after the TTL (5 s in the test services) fresh data shows up.
import { describe, expect, it } from 'vitest';
import { api, createTestKey, eventually } from '../support/api.ts';
import { claimYear, insertListings } from './analytics-fixtures.ts';

describe('analytics cache', () => {
  it('serves a repeated question from the cache, then fresh data after the TTL (happy)', async () => {
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
    expect(first.headers.get('x-cache')).toBe('miss');
    expect(first.body.summary.total_listings).toBe(1);

    await insertListings([listing(70_000)]);
    const second = await api('GET', path, { key });
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.body).toEqual(first.body);

    const fresh = await eventually(async () => {
      const now = await api('GET', path, { key });
      return now.body.summary.total_listings === 2 ? now : undefined;
    });
    expect(fresh.headers.get('x-cache')).toBe('miss');
    expect(fresh.body.summary.median_price_tzs).toBe(60_000);
  });
});
