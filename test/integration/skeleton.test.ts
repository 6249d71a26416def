// The walking skeleton: a listing accepted by the ingest API travels through Kafka and the stream
// worker into ClickHouse and is counted by the analytics API.
import { describe, expect, it } from 'vitest';
import { api, createTestKey, eventually, sampleListing } from '../support/api.ts';

describe('walking skeleton (happy path)', () => {
  it('serves /healthz with every component ok', async () => {
    // Components are shown to the operator only (X-Operator-Token).
    const health = await api('GET', '/healthz', {
      headers: { 'X-Operator-Token': process.env.OPERATOR_TOKEN ?? '' },
    });
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
    for (const name of ['kafka', 'clickhouse', 'redis', 'stream_workers']) {
      expect(health.body.components[name].status).toBe('ok');
    }
    // Every consumer of the workers reports its partitions and lag.
    expect(Object.keys(health.body.components.stream_workers.consumers).sort()).toEqual([
      'image_checks',
      'listings',
      'status',
      'views',
    ]);
  });

  it('counts a bulk-created listing in pricing analytics', async () => {
    // A test-mode key: its listings only feed test analytics, which other test files leave alone.
    const { key } = await createTestKey({ mode: 'test' });
    const before = await api('GET', '/api/v1/analytics/pricing?city=dar_es_salaam&type=studio', { key });
    expect(before.status).toBe(200);
    const start = before.body.summary.total_listings as number;

    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing({ property_type: 'studio' })] },
    });
    expect(created.status).toBe(201);
    expect(created.body.summary).toMatchObject({ total: 1, succeeded: 1, failed: 0 });
    expect(created.body.results[0].listing_id).toMatch(/^[0-9a-f-]{36}$/);

    const counted = await eventually(async () => {
      const now = await api('GET', '/api/v1/analytics/pricing?city=dar_es_salaam&type=studio', { key });
      return now.body.summary.total_listings > start ? now.body.summary.total_listings : undefined;
    });
    expect(counted).toBe(start + 1);
  });
});
