// Photo analysis end to end (issue 16): real images served by a local server, listings posted
// through the API, the stream's image checker decoding, hashing, tagging and comparing them, and
// the results read from ClickHouse, GET /listings/{id} and the batch status. Image URLs use a
// `*.localhost` name (loopback by RFC 6761; the test run's OUTBOUND_ALLOW_CIDRS opens 127.0.0.0/8).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { api, createTestKey, eventually, sampleListing, testClickHouse } from '../support/api.ts';

const kitchen = readFileSync(new URL('../../eval/photos/kitchen.jpg', import.meta.url));
const livingRoom = readFileSync(new URL('../../eval/photos/living-room.jpg', import.meta.url));
const files = new Map<string, Buffer>();
let server: http.Server;
let base = '';

beforeAll(async () => {
  const { width, height } = await sharp(kitchen).metadata();
  files.set('/kitchen.jpg', kitchen);
  files.set('/kitchen-q40.jpg', await sharp(kitchen).jpeg({ quality: 40 }).toBuffer());
  files.set(
    '/kitchen-half.png',
    await sharp(kitchen)
      .resize(Math.round(width! / 2))
      .png()
      .toBuffer(),
  );
  files.set(
    '/kitchen-crop.jpg',
    await sharp(kitchen)
      .extract({ left: 24, top: 11, width: width! - 48, height: height! - 22 })
      .jpeg()
      .toBuffer(),
  );
  files.set('/kitchen-mirror.jpg', await sharp(kitchen).flop().jpeg().toBuffer());
  files.set('/living-room.jpg', livingRoom);
  files.set('/dark.jpg', await sharp(kitchen).linear(0.04, 0).jpeg().toBuffer());
  files.set(
    '/pixel.png',
    await sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } })
      .png()
      .toBuffer(),
  );
  files.set('/fake.jpg', Buffer.from('<html>this is not a JPEG</html>'));
  files.set('/huge.jpg', Buffer.alloc(11 * 1024 * 1024, 0xff)); // over PHOTO_MAX_BYTES (10 MiB)
  server = http.createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (!body) return void res.writeHead(404).end();
    const type = req.url!.endsWith('.png') ? 'image/png' : 'image/jpeg'; // fake.jpg lies on purpose
    res.writeHead(200, { 'content-type': type, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://photos.localhost:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface PhotoRecord {
  image_index: number;
  outcome: string;
  format: string;
  width: number;
  height: number;
  bytes: number;
  is_dark: number;
  is_blurry: number;
  image_of: string;
  tags: string[];
  reused_photo: number;
  reused_listing_id: string | null;
  reused_account_id: string;
  reused_distance: number;
  phash: string;
}

async function postListing(key: string, paths: string[]) {
  const created = await api('POST', '/api/v1/listings/bulk', {
    key,
    body: { listings: [sampleListing({ images: paths.map((p) => base + p) })] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return {
    listingId: created.body.results[0].listing_id as string,
    batchId: created.body.batch_id as string,
  };
}

async function photoRows(listingId: string, count: number): Promise<PhotoRecord[]> {
  return eventually(
    async () => {
      const rows = await queryRows<PhotoRecord>(
        testClickHouse(),
        `SELECT image_index, toString(outcome) AS outcome, format, width, height, bytes, is_dark,
                is_blurry, image_of, tags, reused_photo, toString(reused_listing_id) AS reused_listing_id,
                reused_account_id, reused_distance, toString(phash) AS phash
         FROM listing_images FINAL WHERE listing_id = {id:UUID} ORDER BY image_index`,
        { id: listingId },
      );
      return rows.length === count ? rows : undefined;
    },
    60_000,
    `${count} listing_images rows`,
  );
}

describe('photo analysis (happy, error, security)', () => {
  it('decodes, tags and flags each image; reuse across accounts only; the API shows the results', async () => {
    const first = await createTestKey();
    const own = await postListing(first.key, [
      '/kitchen.jpg',
      '/dark.jpg',
      '/pixel.png',
      '/fake.jpg',
      '/huge.jpg',
      '/kitchen-q40.jpg', // the same photo again in the same account: not reuse
      '/missing.jpg',
    ]);
    const a = await photoRows(own.listingId, 7);
    expect(a[0]).toMatchObject({ outcome: 'decoded', format: 'jpeg', width: 960, height: 440 });
    expect(a[0]!.bytes).toBe(kitchen.length);
    expect(a[0]!.image_of).toBe('Kitchen');
    expect(a[0]!.tags[0]).toBe('Kitchen');
    expect(a[0]!.reused_photo).toBe(0);
    expect(a[1]).toMatchObject({ outcome: 'decoded', is_dark: 1, is_blurry: 0, reused_photo: 0 });
    expect(a[2]).toMatchObject({ outcome: 'too_small', width: 0, image_of: '' });
    expect(a[3]).toMatchObject({ outcome: 'not_an_image', image_of: '' });
    expect(a[4]).toMatchObject({ outcome: 'too_large', bytes: 0 });
    expect(a[5]).toMatchObject({ outcome: 'decoded', reused_photo: 0 });
    expect(a[6]).toMatchObject({ outcome: 'not_checked' }); // 404: the check failed, nothing fetched

    // Another account posts copies: re-encoded, resized, cropped, mirrored; a different photo; a
    // dark picture (blank pictures are never compared: they would all match each other).
    const second = await createTestKey();
    const copy = await postListing(second.key, [
      '/kitchen-q40.jpg',
      '/kitchen-half.png',
      '/kitchen-crop.jpg',
      '/kitchen-mirror.jpg',
      '/living-room.jpg',
      '/dark.jpg',
    ]);
    const b = await photoRows(copy.listingId, 6);
    for (const row of b.slice(0, 4)) {
      expect(row, `image ${row.image_index}`).toMatchObject({
        outcome: 'decoded',
        reused_photo: 1,
        reused_listing_id: own.listingId,
        reused_account_id: first.account_id,
      });
      expect(row.reused_distance).toBeLessThanOrEqual(12);
    }
    expect(b[1]!.width).toBe(480);
    expect(b[4]).toMatchObject({ outcome: 'decoded', reused_photo: 0, image_of: 'LivingRoom' });
    expect(b[5]).toMatchObject({ outcome: 'decoded', is_dark: 1, reused_photo: 0 });

    // The owner's view: contract fields, reuse as a flag only (never the other listing or account).
    const listing = await eventually(
      async () => {
        const got = await api('GET', `/api/v1/listings/${copy.listingId}`, { key: second.key });
        return got.status === 200 && got.body.images.every((i: { checked: boolean }) => i.checked)
          ? got
          : undefined;
      },
      60_000,
      'GET /listings/{id} with checked images',
    );
    expect(listing.body.images[0]).toEqual({
      url: `${base}/kitchen-q40.jpg`,
      checked: true,
      ok: true,
      width: 960,
      height: 440,
      tags: [{ tag: 'Kitchen', confidence: expect.any(Number) }],
      image_of: 'Kitchen',
      reused_photo: true,
    });
    expect(listing.body.images[4]).toMatchObject({ image_of: 'LivingRoom', reused_photo: false });
    const text = JSON.stringify(listing.body);
    expect(text).not.toContain(own.listingId);
    expect(text).not.toContain(first.account_id);
    const other = await api('GET', `/api/v1/listings/${copy.listingId}`, { key: first.key });
    expect(other.status).toBe(404);

    // The owner of the failures sees them as unchecked or undecoded images.
    const mine = await api('GET', `/api/v1/listings/${own.listingId}`, { key: first.key });
    expect(mine.status).toBe(200);
    expect(mine.body.images[2]).toMatchObject({ checked: true, ok: true, width: null, image_of: null });
    expect(mine.body.images[6]).toMatchObject({
      checked: true,
      ok: false,
      image_of: null,
      reused_photo: false,
    });

    // The batch status summarises tags and reuse.
    const status = await api('GET', `/api/v1/listings/batches/${copy.batchId}`, { key: second.key });
    expect(status.body.photos).toEqual({
      analysed: 6,
      decoded: 6,
      undecodable: 0,
      tagged: 5,
      abstained: 1,
      reused: 4,
      tags: { Kitchen: 4, LivingRoom: 1 },
    });
    const firstStatus = await api('GET', `/api/v1/listings/batches/${own.batchId}`, { key: first.key });
    expect(firstStatus.body.photos).toMatchObject({ analysed: 7, decoded: 3, undecodable: 3, reused: 0 });
  });
});
