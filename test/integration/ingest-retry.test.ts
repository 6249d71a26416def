// Retrying POST /listings/bulk is safe: duplicates are skipped with their original ids, a whole
// retried batch stores no new rows (even when the Redis fast path is lost), and Idempotency-Key
// replays the first response.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { idempotencyKey as idempotencyRecordKey } from '../../ingest/idempotency.ts';
import {
  api,
  batchCompleted,
  createTestKey,
  env,
  sampleListing,
  testClickHouse,
  testRedis,
} from '../support/api.ts';

async function storedRows(ids: string[]): Promise<number> {
  const rows = await queryRows<{ c: string }>(
    testClickHouse(),
    'SELECT count() AS c FROM listings WHERE listing_id IN {ids:Array(UUID)}',
    { ids },
  );
  return Number(rows[0]!.c);
}

describe('retries and duplicates (happy)', () => {
  it('a retried whole batch creates nothing new: same ids, reported as duplicates, no new rows', async () => {
    const { key } = await createTestKey();
    const listings = Array.from({ length: 20 }, () => sampleListing());
    const first = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
    expect(first.status).toBe(201);
    expect(first.body.summary).toMatchObject({ total: 20, succeeded: 20, created: 20, duplicates: 0 });
    const ids = first.body.results.map((r: { listing_id: string }) => r.listing_id);
    expect(new Set(ids).size).toBe(20);
    await batchCompleted(key, first.body.batch_id);
    expect(await storedRows(ids)).toBe(20);

    const retry = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
    expect(retry.status).toBe(201);
    expect(retry.body.summary).toMatchObject({ total: 20, succeeded: 20, created: 0, duplicates: 20 });
    expect(retry.body.batch_id).not.toBe(first.body.batch_id);
    for (const [i, result] of retry.body.results.entries()) {
      expect(result).toMatchObject({
        index: i,
        success: true,
        status: 'duplicate',
        listing_id: ids[i],
        duplicate_of_batch_id: first.body.batch_id,
      });
    }
    const retryBatch = await api('GET', `/api/v1/listings/batches/${retry.body.batch_id}`, { key });
    expect(retryBatch.body).toMatchObject({ status: 'completed', created: 0, duplicates: 20 });

    // Lose the Redis fast path: the ids are deterministic and the stream skips stored ids.
    const redis = await testRedis();
    await redis.del(...ids.map((id: string) => `${env.REDIS_KEY_PREFIX}seen:${id}`));
    const third = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
    expect(third.status).toBe(201);
    expect(third.body.results.map((r: { listing_id: string }) => r.listing_id)).toEqual(ids);
    await batchCompleted(key, third.body.batch_id);
    expect(await storedRows(ids)).toBe(20);
  });

  it('treats the same listing twice in one request, and reformatted copies, as duplicates', async () => {
    const { key } = await createTestKey();
    const base = sampleListing({ address: 'Plot 12, Masaki Road', title: 'Sea View Flat 7' });
    const reformatted = {
      ...base,
      title: '  sea view   FLAT 7 ',
      address: 'plot 12 masaki road',
      description: 'Rewritten description, same flat',
    };
    const response = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [base, base, reformatted, { ...base, price: base.price + 1 }] },
    });
    expect(response.status).toBe(201);
    const [a, b, c, d] = response.body.results;
    expect(a.status).toBe('created');
    expect(b).toMatchObject({ status: 'duplicate', listing_id: a.listing_id });
    expect(c).toMatchObject({ status: 'duplicate', listing_id: a.listing_id });
    expect(d.status).toBe('created');
    expect(d.listing_id).not.toBe(a.listing_id);
  });

  it('uses external_id as the criterion when given, and scopes duplicates to the account and mode', async () => {
    const one = await createTestKey();
    const other = await createTestKey();
    const listing = sampleListing({ external_id: 'feed-123' });
    const first = await api('POST', '/api/v1/listings/bulk', { key: one.key, body: { listings: [listing] } });
    const changed = await api('POST', '/api/v1/listings/bulk', {
      key: one.key,
      body: { listings: [{ ...listing, price: 999_999, title: 'Renamed' }] },
    });
    expect(changed.body.results[0]).toMatchObject({
      status: 'duplicate',
      listing_id: first.body.results[0].listing_id,
    });
    const otherAccount = await api('POST', '/api/v1/listings/bulk', {
      key: other.key,
      body: { listings: [listing] },
    });
    expect(otherAccount.body.results[0].status).toBe('created');
    expect(otherAccount.body.results[0].listing_id).not.toBe(first.body.results[0].listing_id);
    const testMode = await api('POST', '/api/v1/listings/bulk', {
      key: one.key,
      body: { listings: [listing], test_mode: true },
    });
    expect(testMode.body.results[0].status).toBe('created');
    expect(testMode.body.results[0].listing_id).not.toBe(first.body.results[0].listing_id);
  });
});

describe('Idempotency-Key', () => {
  it('happy: replays the first response for the same key and body', async () => {
    const { key } = await createTestKey();
    const body = { listings: [sampleListing(), { title: 'broken' }] };
    const headers = { 'Idempotency-Key': `k-${Date.now()}` };
    const first = await api('POST', '/api/v1/listings/bulk', { key, body, headers });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const replay = await api('POST', '/api/v1/listings/bulk', { key, body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('error: replays a 400 as its status, code and digest (not its details), and rejects reuse with another body with 422', async () => {
    const { key } = await createTestKey();
    const headers = { 'Idempotency-Key': `bad-${Date.now()}` };
    const body = { listings: [{ title: 'broken' }] };
    const first = await api('POST', '/api/v1/listings/bulk', { key, body, headers });
    expect(first.status).toBe(400);
    const replay = await api('POST', '/api/v1/listings/bulk', { key, body, headers });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body.error).toMatchObject({
      code: first.body.error.code,
      retriable: false,
      details: {
        replayed: true,
        original_request_id: first.body.error.request_id,
        body_sha256: createHash('sha256').update(JSON.stringify(first.body)).digest('hex'),
      },
    });
    const reused = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing()] },
      headers,
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });

  it('error: answers 409 while the first request with the key is still in progress', async () => {
    const { key, account_id } = await createTestKey();
    const idempotencyKey = `busy-${Date.now()}`;
    const raw = JSON.stringify({ listings: [sampleListing()] });
    // The state a concurrent first request leaves while it runs (ingest/idempotency.ts).
    const redis = await testRedis();
    const recordKey = idempotencyRecordKey(
      env.REDIS_KEY_PREFIX,
      { endpoint: 'bulk', accountId: account_id, mode: 'live' },
      createHash('sha256').update(idempotencyKey).digest('hex'),
    );
    await redis.hset(recordKey, {
      state: 'in_progress',
      hash: createHash('sha256').update(raw).digest('hex'),
    });
    await redis.expire(recordKey, 60);
    const busy = await api('POST', '/api/v1/listings/bulk', {
      key,
      rawBody: raw,
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
    });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'idempotency_in_progress', retriable: true });
  });

  it('security: keeps keys per account: another account with the same key is not replayed', async () => {
    const one = await createTestKey();
    const two = await createTestKey();
    const headers = { 'Idempotency-Key': `shared-${Date.now()}` };
    const body = { listings: [sampleListing()] };
    await api('POST', '/api/v1/listings/bulk', { key: one.key, body, headers });
    const second = await api('POST', '/api/v1/listings/bulk', { key: two.key, body, headers });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotency-replayed')).toBeNull();
  });

  it('error: refuses a malformed Idempotency-Key with 400', async () => {
    const { key } = await createTestKey();
    const response = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing()] },
      headers: { 'Idempotency-Key': 'x'.repeat(300) },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_parameter');
  });
});
