// Batches (contract, "Batches"), test/live isolation and the OpenAPI document.
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import {
  api,
  batchCompleted,
  createTestKey,
  eventually,
  sampleListing,
  testClickHouse,
} from '../support/api.ts';

async function isTestFlags(ids: string[]): Promise<Record<string, number>> {
  const rows = await queryRows<{ id: string; t: number }>(
    testClickHouse(),
    'SELECT toString(listing_id) AS id, is_test AS t FROM listings WHERE listing_id IN {ids:Array(UUID)}',
    { ids },
  );
  return Object.fromEntries(rows.map((r) => [r.id, Number(r.t)]));
}

describe('batches (happy)', () => {
  it('reports processing → completed once every created listing is stored, with counts', async () => {
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing(), sampleListing(), { title: 'bad' }] },
    });
    expect(created.status).toBe(201);
    const batchId = created.body.batch_id;
    const first = await api('GET', `/api/v1/listings/batches/${batchId}`, { key });
    expect(first.status).toBe(200);
    expect(['processing', 'completed']).toContain(first.body.status);
    expect(first.body).toMatchObject({
      batch_id: batchId,
      total: 3,
      created: 2,
      failed: 1,
      failed_indexes: [2],
    });
    const done = await batchCompleted(key, batchId);
    expect(done).toMatchObject({ stored: 2, pending: 0, images: null, test_mode: false });
    expect(done.completed_at).toBeTruthy();
    const flags = await isTestFlags(
      created.body.results.slice(0, 2).map((r: { listing_id: string }) => r.listing_id),
    );
    expect(Object.keys(flags)).toHaveLength(2);
  });
});

describe('batches (security)', () => {
  it('hides a batch from every other account (404, same as unknown)', async () => {
    const owner = await createTestKey();
    const stranger = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key: owner.key,
      body: { listings: [sampleListing()] },
    });
    const peek = await api('GET', `/api/v1/listings/batches/${created.body.batch_id}`, { key: stranger.key });
    expect(peek.status).toBe(404);
    expect(peek.body.error.code).toBe('not_found');
    const unknown = await api('GET', '/api/v1/listings/batches/00000000-0000-4000-8000-000000000000', {
      key: owner.key,
    });
    expect(unknown.status).toBe(404);
    const garbage = await api('GET', '/api/v1/listings/batches/..%2F..%2Fkeys', { key: owner.key });
    expect(garbage.status).toBe(404);
    // A second key of the owning account and mode may read it; its test key may not.
    const sibling = await createTestKey({ accountId: owner.account_id });
    const own = await api('GET', `/api/v1/listings/batches/${created.body.batch_id}`, { key: sibling.key });
    expect(own.status).toBe(200);
    const testKey = await createTestKey({ accountId: owner.account_id, mode: 'test' });
    const other = await api('GET', `/api/v1/listings/batches/${created.body.batch_id}`, { key: testKey.key });
    expect(other.status).toBe(404);
  });
});

describe('test mode isolation (happy)', () => {
  it('stores test-key and test_mode batches as is_test=1 and live batches as is_test=0', async () => {
    const live = await createTestKey({ mode: 'live' });
    const test = await createTestKey({ mode: 'test', accountId: live.account_id });
    const post = (key: string, body: object) => api('POST', '/api/v1/listings/bulk', { key, body });
    const fromLive = await post(live.key, { listings: [sampleListing()] });
    const fromLiveTestMode = await post(live.key, { listings: [sampleListing()], test_mode: true });
    const fromTest = await post(test.key, { listings: [sampleListing()] });
    // A test key cannot opt out of test mode.
    const fromTestLiveMode = await post(test.key, { listings: [sampleListing()], test_mode: false });
    expect(fromLive.body.summary.test_mode).toBe(false);
    expect(fromLiveTestMode.body.summary.test_mode).toBe(true);
    expect(fromTest.body.summary.test_mode).toBe(true);
    expect(fromTestLiveMode.body.summary.test_mode).toBe(true);
    const idOf = (r: { body: { results: { listing_id: string }[] } }) => r.body.results[0]!.listing_id;
    const ids = [fromLive, fromLiveTestMode, fromTest, fromTestLiveMode].map(idOf);
    const flags = await eventually(async () => {
      const now = await isTestFlags(ids);
      return Object.keys(now).length === 4 ? now : undefined;
    }, 30_000);
    expect(ids.map((id) => flags[id])).toEqual([0, 1, 1, 1]);
  });
});

describe('OpenAPI document (happy)', () => {
  it('serves an OpenAPI 3.1 document without a key, generated from the zod schemas', async () => {
    const response = await api('GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    for (const path of ['/listings/bulk', '/listings/batches/{batch_id}', '/events/views', '/openapi.json']) {
      expect(response.body.paths[path]).toBeDefined();
    }
    const bulk = response.body.paths['/listings/bulk'].post;
    const listing = bulk.requestBody.content['application/json'].schema.properties.listings.items;
    expect(listing.properties.property_type.enum).toEqual([
      'apartment',
      'house',
      'studio',
      'room',
      'commercial',
      'land',
    ]);
    expect(listing.properties.title.maxLength).toBe(200);
    expect(listing.additionalProperties).toBe(false);
    expect(bulk.responses['400'].$ref).toBe('#/components/responses/Error400');
    expect(response.body.components.securitySchemes.ApiKey).toMatchObject({
      in: 'header',
      name: 'X-API-Key',
    });
  });
});
