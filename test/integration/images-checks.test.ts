// Asynchronous image checks: the stream's image checker consumes the listings topic, checks each
// image URL through the SSRF-safe client, and records the outcome per image and per batch.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { imageChecksKey } from '../../common/photos/batch-image-checks.ts';
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
  // This machine has no public DNS: the names below do not resolve, so every image is unreachable.
  // The HEAD/GET/content-type rules are covered against a real server in
  // test/unit/outbound-image-check.test.ts; IP-literal hosts reach a local one below.
  it('checks every image of a batch asynchronously: ClickHouse rows and the Redis summary', async () => {
    const { key, account_id } = await createTestKey();
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
        const s = await redis.hgetall(imageChecksKey(env.REDIS_KEY_PREFIX, account_id, batchId));
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

describe('image URLs with an IP-literal host', () => {
  it('happy: accepted at validation and checked like a host name (127.0.0.1 is in the test OUTBOUND_ALLOW_CIDRS)', async () => {
    const server = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const { key } = await createTestKey();
      // 203.0.113.7 is a valid URL host; the outbound policy refuses it (TEST-NET-3) when fetched.
      const images = [
        `http://127.0.0.1:${port}/a.jpg`,
        'http://203.0.113.7/a.jpg',
        'http://[2001:db8::7]/b.png',
      ];
      const created = await api('POST', '/api/v1/listings/bulk', {
        key,
        body: { listings: [sampleListing({ images })] },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.results[0], JSON.stringify(created.body)).toMatchObject({ success: true });
      const listingId = created.body.results[0].listing_id as string;
      const rows = await eventually(
        async () => {
          const found = await queryRows<Record<string, string | number>>(
            testClickHouse(),
            `SELECT image_index, method, is_reachable, is_ok, error
             FROM image_checks FINAL WHERE listing_id = {id:UUID} ORDER BY image_index`,
            { id: listingId },
          );
          return found.length === 3 ? found : undefined;
        },
        30_000,
        'image_checks rows',
      );
      expect(rows.map((r) => [r.image_index, r.method, r.is_ok])).toEqual([
        [0, 'HEAD', 1],
        [1, 'none', 0],
        [2, 'none', 0],
      ]);
      expect(String(rows[1]!.error)).toMatch(/refused: forbidden_address/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
