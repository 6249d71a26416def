// End to end: listings created through POST /listings/bulk (with a past listed_at and a
// neighbourhood location_id) travel through Kafka and the stream into ClickHouse and come out of
// GET /analytics/pricing with exact figures. The API accepts listed_at only within the last two
// years, so this test claims a (quarter, city, type) combination that holds no test-mode listings.
import { describe, expect, it } from 'vitest';
import { neighbourhoodsOf } from '../../common/domain/locations.ts';
import { citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import {
  api,
  batchCompleted,
  createTestKey,
  env,
  eventually,
  sampleListing,
  testClickHouse,
  testRedis,
} from '../support/api.ts';
import { medianOf } from '../support/analytics-fixtures.ts';

async function claimCombination() {
  const redis = await testRedis();
  const now = new Date();
  for (let attempt = 0; attempt < 200; attempt++) {
    // One to six quarters back: never the current quarter (other tests list "now").
    const back = 1 + Math.floor(Math.random() * 6);
    const start = new Date(
      Date.UTC(now.getUTCFullYear(), Math.floor(now.getUTCMonth() / 3) * 3 - back * 3, 1),
    );
    const city = citySlugs[Math.floor(Math.random() * citySlugs.length)]!;
    const type = propertyTypes[Math.floor(Math.random() * propertyTypes.length)]!;
    const period = `${start.getUTCFullYear()}-Q${start.getUTCMonth() / 3 + 1}`;
    const claim = await redis.set(
      `${env.REDIS_KEY_PREFIX}test:analytics-e2e:${period}:${city}:${type}`,
      '1',
      'NX',
    );
    if (claim !== 'OK') continue;
    const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 3, 1));
    const result = await testClickHouse().query({
      query: `SELECT count() AS n FROM listings WHERE is_test = 1 AND city = {city:String} AND property_type = {type:String}
              AND listed_at >= {start:DateTime('UTC')} AND listed_at < {end:DateTime('UTC')}`,
      query_params: { city, type, start, end },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ n: string }>();
    // The middle of the quarter, but never in the future nor older than two years.
    const listedAt = new Date(Math.min(start.getTime() + 40 * 86_400_000, now.getTime() - 86_400_000));
    if (Number(row?.n) === 0) return { city, type, period, listedAt: listedAt.toISOString() };
  }
  throw new Error('no free (quarter, city, type) combination for the analytics e2e test');
}

describe('analytics end to end', () => {
  it('happy: prices listings created through POST /listings/bulk exactly', async () => {
    const { city, type, period, listedAt } = await claimCombination();
    const neighbourhood = neighbourhoodsOf(city)[0]!;
    const { key } = await createTestKey({ mode: 'test' });
    const prices = [410_000, 380_000, 555_000, 402_500];
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: {
        listings: prices.map((price) =>
          sampleListing({
            property_type: type,
            price,
            location_id: neighbourhood.id,
            latitude: neighbourhood.latitude,
            longitude: neighbourhood.longitude,
            listed_at: listedAt,
          }),
        ),
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.summary.succeeded).toBe(prices.length);
    await batchCompleted(key, created.body.batch_id, 60_000);

    const path = `/api/v1/analytics/pricing?city=${city}&type=${type}&period=${period}`;
    const answer = await eventually(
      async () => {
        const r = await api('GET', path, { key });
        return r.body?.summary?.total_listings === prices.length ? r.body : undefined;
      },
      30_000,
      'listings counted by the pricing endpoint',
    );
    expect(answer.summary).toEqual({
      median_price_tzs: medianOf(prices),
      avg_price_tzs: prices.reduce((a, b) => a + b, 0) / prices.length,
      min_price_tzs: Math.min(...prices),
      max_price_tzs: Math.max(...prices),
      total_listings: prices.length,
    });
    expect(answer.by_neighborhood).toEqual([
      {
        name: neighbourhood.name,
        median_price: medianOf(prices),
        listing_count: prices.length,
        demand_score: expect.any(Number),
        trend: 'insufficient_data',
      },
    ]);
  });
});
