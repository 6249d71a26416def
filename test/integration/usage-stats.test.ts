// GET /listings/bulk (spec §4.2): the key's status and usage move by exactly what the test did,
// never reveal the plaintext or hash, and are rolled up into ClickHouse (api_key_usage_daily).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { bucketsOf, dirtyKey } from '../../common/usage/keys.ts';
import { rollupUsage } from '../../stream/usage/rollup.ts';
import {
  api,
  createTestKey,
  env,
  eventually,
  sampleListing,
  testClickHouse,
  testRedis,
} from '../support/api.ts';

const usagePath = '/api/v1/listings/bulk';
const analyticsPath = '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment';

describe('usage statistics (happy)', () => {
  it('reports the key status and counts exactly the requests and listings of this test', async () => {
    const { key, id, account_id } = await createTestKey({
      mode: 'test',
      tier: 'business',
      name: 'usage test',
    });

    const first = await api('GET', usagePath, { key });
    expect(first.status).toBe(200);
    expect(first.body.key).toMatchObject({
      id,
      account_id,
      mode: 'test',
      tier: 'business',
      status: 'active',
      name: 'usage test',
      prefix: key.slice(0, 13) + '…',
    });
    expect(Date.parse(first.body.key.created_at)).not.toBeNaN();
    expect(Date.parse(first.body.key.last_used_at)).not.toBeNaN();
    expect(first.body.limits).toMatchObject({ requests_per_minute: 60, max_images_per_listing: 30 });
    expect(first.body.rate_limit).toMatchObject({ limit: 60, remaining: 59, window_seconds: 60 });
    expect(first.body.usage.today).toMatchObject({
      date: new Date().toISOString().slice(0, 10),
      requests: 1,
      rate_limited: 0,
      requests_by_endpoint: { 'GET /listings/bulk': 1 },
      listings: { created: 0, duplicates: 0, failed: 0 },
    });

    // Two analytics reads, one bulk request with 2 new + 1 invalid listing, then the same two
    // listings again (duplicates) with one more new one.
    for (let i = 0; i < 2; i++) expect((await api('GET', analyticsPath, { key })).status).toBe(200);
    const [a, b, c] = [sampleListing(), sampleListing(), sampleListing()];
    const created = await api('POST', usagePath, { key, body: { listings: [a, b, { title: 'no price' }] } });
    expect(created.status).toBe(201);
    const again = await api('POST', usagePath, { key, body: { listings: [a, b, c] } });
    expect(again.status).toBe(201);
    expect(again.body.summary).toMatchObject({ created: 1, duplicates: 2 });

    const after = await api('GET', usagePath, { key });
    expect(after.status).toBe(200);
    const expected = {
      requests: 6,
      rate_limited: 0,
      requests_by_endpoint: {
        'GET /listings/bulk': 2,
        'GET /analytics/pricing': 2,
        'POST /listings/bulk': 2,
      },
      listings: { created: 3, duplicates: 2, failed: 1 },
    };
    expect(after.body.usage.today).toMatchObject(expected);
    expect(after.body.usage.this_month).toMatchObject({
      ...expected,
      month: new Date().toISOString().slice(0, 7),
    });
    expect(after.body.usage.total).toEqual({ listings: { created: 3, duplicates: 2, failed: 1 } });
    expect(after.body.rate_limit.remaining).toBe(54);
    expect(after.headers.get('ratelimit-remaining')).toBe('54');

    // Never the plaintext key or its hash.
    const text = JSON.stringify(after.body);
    expect(text).not.toContain(key);
    expect(text).not.toContain(createHash('sha256').update(key).digest('hex'));
  });

  it('counts requests refused with 429 separately from admitted ones', async () => {
    const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await api('GET', analyticsPath, { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // The window is used up, so read the counters directly from the service module.
    const { readUsage } = await import('../../common/usage/counters.ts');
    const redis = await testRedis();
    const usage = await readUsage(redis, env.REDIS_KEY_PREFIX, hashApiKey(key));
    expect(usage.today.requests).toMatchObject({
      total: 3,
      rate_limited: 2,
      by_endpoint: { 'GET /analytics/pricing': 3 },
    });
  });
});

describe('usage rollup to ClickHouse (happy)', () => {
  it('writes the day counters of a key to v_api_key_usage_daily', async () => {
    const { key, id, account_id } = await createTestKey({ mode: 'test', tier: 'pro' });
    for (let i = 0; i < 3; i++) expect((await api('GET', usagePath, { key })).status).toBe(200);
    const created = await api('POST', usagePath, {
      key,
      body: { listings: [sampleListing(), { price: 'x' }] },
    });
    expect(created.status).toBe(201);

    const deps = {
      redis: await testRedis(),
      clickhouse: testClickHouse(),
      prefix: env.REDIS_KEY_PREFIX,
      parts: env.REDIS_GLOBAL_PARTS,
    };
    expect(id).toMatch(/^key_[0-9a-f]{24}$/); // validated: safe to quote in SQL
    const rows = await eventually(
      async () => {
        // Runs beside the stream worker's scheduled roll-up: each writes the day's absolute values.
        await rollupUsage(deps);
        const result = await deps.clickhouse.query({
          query: `SELECT metric, endpoint, toUInt64(value) AS value, account_id, mode, tier FROM v_api_key_usage_daily
                WHERE key_id = {id:String} AND day = today() ORDER BY metric, endpoint`,
          query_params: { id },
          format: 'JSONEachRow',
        });
        const found = await result.json<{
          metric: string;
          endpoint: string;
          value: string;
          account_id: string;
        }>();
        return found.some((r) => r.metric === 'listings_failed') ? found : undefined;
      },
      20_000,
      'usage rows in ClickHouse',
    );
    const byMetric = Object.fromEntries(rows.map((r) => [`${r.metric}|${r.endpoint}`, Number(r.value)]));
    expect(byMetric).toEqual({
      'listings_created|': 1,
      'listings_duplicates|': 0,
      'listings_failed|': 1,
      'requests_by_endpoint|GET /listings/bulk': 3,
      'requests_by_endpoint|POST /listings/bulk': 1,
      'requests|': 4,
    });
    expect(rows[0]).toMatchObject({ account_id, mode: 'test', tier: 'pro' });
  });

  it("reads every part of the day's dirty set: keys marked in different parts are all rolled up", async () => {
    const keys: { key: string; id: string }[] = [];
    const parts = new Set<number>();
    while (parts.size < 3) {
      const made = await createTestKey({ mode: 'test', tier: 'free' });
      const part = partOf(hashApiKey(made.key), env.REDIS_GLOBAL_PARTS);
      if (parts.has(part)) continue;
      parts.add(part);
      keys.push(made);
    }
    for (const { key } of keys) expect((await api('GET', usagePath, { key })).status).toBe(200);
    const redis = await testRedis();
    const day = bucketsOf(new Date()).day;
    for (const { key } of keys) {
      const hash = hashApiKey(key);
      expect(
        await redis.sismember(dirtyKey(env.REDIS_KEY_PREFIX, day, hash, env.REDIS_GLOBAL_PARTS), hash),
      ).toBe(1);
    }
    const deps = {
      redis,
      clickhouse: testClickHouse(),
      prefix: env.REDIS_KEY_PREFIX,
      parts: env.REDIS_GLOBAL_PARTS,
    };
    await eventually(
      async () => {
        await rollupUsage(deps);
        const result = await deps.clickhouse.query({
          query: `SELECT DISTINCT key_id FROM v_api_key_usage_daily
                  WHERE key_id IN {ids:Array(String)} AND day = today() AND metric = 'requests'`,
          query_params: { ids: keys.map((k) => k.id) },
          format: 'JSONEachRow',
        });
        const found = await result.json<{ key_id: string }>();
        return found.length === keys.length ? found : undefined;
      },
      20_000,
      'a usage row of each key',
    );
  });
});
