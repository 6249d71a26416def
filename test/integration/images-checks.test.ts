// Asynchronous image checks: the stream's image checker consumes the listings topic, checks each
// image URL through the SSRF-safe client, and records the outcome per image and per batch.
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import {
  api,
  createTestKey,
  env,
  eventually,
  sampleListing,
  testClickHouse,
  testRedis,
} from '../support/api.ts';

describe('image checks (happy, error)', () => {
  // Listing image URLs need a DNS name (ingest validation) and this machine has no public DNS: the
  // names below do not resolve, so every image is unreachable. The HEAD/GET/content-type rules are
  // covered against a real server in test/unit/outbound-image-check.test.ts.
  it('checks every image of a batch asynchronously: ClickHouse rows and the Redis summary', async () => {
    const { key } = await createTestKey();
    const images = ['https://img1.rls-test.invalid/a.jpg', 'https://img2.rls-test.invalid/b.png'];
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing({ images }), sampleListing()] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const batchId = created.body.batch_id as string;
    const listingId = created.body.results[0].listing_id as string;

    const redis = await testRedis();
    const summary = await eventually(
      async () => {
        const s = await redis.hgetall(`${env.REDIS_KEY_PREFIX}batch:${batchId}:images`);
        return s.checked === '2' ? s : undefined;
      },
      30_000,
      'image summary',
    );
    expect(summary).toMatchObject({ checked: '2', ok: '0', failed: '2', pending: '0' });
    const status = await api('GET', `/api/v1/listings/batches/${batchId}`, { key });
    expect(status.status).toBe(200);
    expect(JSON.stringify(status.body)).toContain('"failed":2');

    const rows = await eventually(
      async () => {
        const found = await queryRows<Record<string, string | number>>(
          testClickHouse(),
          `SELECT image_index, url, method, is_reachable, is_ok, error
           FROM image_checks FINAL WHERE listing_id = {id:UUID} ORDER BY image_index`,
          { id: listingId },
        );
        return found.length === 2 ? found : undefined;
      },
      30_000,
      'image_checks rows',
    );
    expect(rows.map((r) => [r.image_index, r.url, r.is_reachable, r.is_ok])).toEqual([
      [0, images[0], 0, 0],
      [1, images[1], 0, 0],
    ]);
    expect(String(rows[0]!.error)).toMatch(/unresolvable_host/);
  });
});
