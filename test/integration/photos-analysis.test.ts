// Photo analysis end to end: real images served by a local server, listings posted
// through the API, the stream's image checker decoding, hashing, tagging and comparing them, and
// the results read from ClickHouse, GET /listings/{id} and the batch status. Image URLs use a
// `*.localhost` name (loopback by RFC 6761; the test run's OUTBOUND_ALLOW_CIDRS opens 127.0.0.0/8).
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { api, createTestKey, eventually, sampleListing, testClickHouse } from '../support/api.ts';
import { servePhotos, type PhotoServer } from '../support/photo-server.ts';

const kitchen = readFileSync(new URL('../../eval/photos/kitchen.jpg', import.meta.url));
// living-room-2.jpg: the head calls living-room.jpg (an open-plan room) Kitchen (docs/webhooks.md).
const livingRoom = readFileSync(new URL('../../eval/photos/living-room-2.jpg', import.meta.url));
const files = new Map<string, Buffer>();
/**
 * The image checker stores a Kafka batch's rows when every image of the batch is done, so in the
 * whole suite these listings can wait behind other tests' images (unresolvable hosts, each a DNS
 * failure): generous, though alone the test takes ~10 s.
 */
const ROWS_WITHIN_MS = 150_000;
let server: PhotoServer;
let base = '';

/**
 * A photo-like picture (smooth colour fields at several scales, like a natural image's spectrum)
 * that no earlier run stored. The warehouse keeps every run's photos and reuse is checked across
 * all accounts, so the reuse assertions need photos of this run (the eval photos are on the
 * listings of earlier runs: their own reuse flags are not asserted).
 */
async function freshPhoto(): Promise<Buffer> {
  const [w, h] = [200, 150];
  const pixels = new Float64Array(w * h * 3);
  const octaves = [
    [3, 1],
    [6, 0.5],
    [12, 0.25],
    [24, 0.12],
    [48, 0.06],
  ] as const;
  for (const [cells, weight] of octaves) {
    const grid = Float64Array.from({ length: (cells + 1) ** 2 * 3 }, () => Math.random());
    const at = (gx: number, gy: number, c: number) => grid[(gy * (cells + 1) + gx) * 3 + c]!;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const [fx, fy] = [(x / w) * cells, (y / h) * cells];
        const [x0, y0] = [Math.floor(fx), Math.floor(fy)];
        const [tx, ty] = [fx - x0, fy - y0];
        for (let c = 0; c < 3; c++) {
          const top = at(x0, y0, c) * (1 - tx) + at(x0 + 1, y0, c) * tx;
          const bottom = at(x0, y0 + 1, c) * (1 - tx) + at(x0 + 1, y0 + 1, c) * tx;
          pixels[(y * w + x) * 3 + c] =
            pixels[(y * w + x) * 3 + c]! + weight * (top * (1 - ty) + bottom * ty);
        }
      }
  }
  const bytes = Buffer.from(Array.from(pixels, (v) => Math.min(255, Math.round((v / 1.93) * 255))));
  return sharp(bytes, { raw: { width: w, height: h, channels: 3 } })
    .resize(800, 600)
    .jpeg({ quality: 90 })
    .toBuffer();
}

beforeAll(async () => {
  const photo = await freshPhoto();
  files.set('/kitchen.jpg', kitchen);
  files.set('/living-room.jpg', livingRoom);
  files.set('/photo.jpg', photo);
  files.set('/photo-q40.jpg', await sharp(photo).jpeg({ quality: 40 }).toBuffer());
  files.set('/photo-half.png', await sharp(photo).resize(400).png().toBuffer());
  // 1.25 % off each side.
  files.set(
    '/photo-crop.jpg',
    await sharp(photo).extract({ left: 10, top: 8, width: 780, height: 584 }).jpeg().toBuffer(),
  );
  files.set('/photo-mirror.jpg', await sharp(photo).flop().jpeg().toBuffer());
  files.set('/other-photo.jpg', await freshPhoto());
  files.set('/dark.jpg', await sharp(kitchen).linear(0.04, 0).jpeg().toBuffer());
  files.set(
    '/pixel.png',
    await sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } })
      .png()
      .toBuffer(),
  );
  files.set('/fake.jpg', Buffer.from('<html>this is not a JPEG</html>'));
  files.set('/huge.jpg', Buffer.alloc(11 * 1024 * 1024, 0xff)); // over PHOTO_MAX_BYTES (10 MiB)
  // Each answer claims the type its name says (so fake.jpg lies on purpose).
  server = await servePhotos(files, 'photos.localhost', (path) =>
    path.endsWith('.png') ? 'image/png' : 'image/jpeg',
  );
  base = server.base;
});
afterAll(() => server.close());

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
                reused_account_id, reused_distance
         FROM listing_images FINAL WHERE listing_id = {id:UUID} ORDER BY image_index`,
        { id: listingId },
      );
      return rows.length === count ? rows : undefined;
    },
    ROWS_WITHIN_MS,
    `${count} listing_images rows`,
  );
}

describe('photo analysis (happy, error, security)', () => {
  /** The image indexes of the earlier listing that the photos of `listingId` were found to copy. */
  async function reusedIndexes(listingId: string): Promise<number[]> {
    const result = await testClickHouse().query({
      query: `SELECT DISTINCT reused_image_index AS i FROM listing_images FINAL
              WHERE listing_id = {id:UUID} AND reused_photo = 1`,
      query_params: { id: listingId },
      format: 'JSONEachRow',
    });
    return (await result.json<{ i: number }>()).map((row) => Number(row.i));
  }

  it(
    'decodes, tags and flags each image; reuse across accounts only; the API shows the results',
    async () => {
      const first = await createTestKey();
      const own = await postListing(first.key, [
        '/photo.jpg',
        '/photo-q40.jpg', // the same photo again in the same account: not reuse
        '/kitchen.jpg',
        '/living-room.jpg',
        '/dark.jpg',
        '/pixel.png',
        '/fake.jpg',
        '/huge.jpg',
        '/missing.jpg',
      ]);
      const a = await photoRows(own.listingId, 9);
      expect(a[0]).toMatchObject({
        outcome: 'decoded',
        format: 'jpeg',
        width: 800,
        height: 600,
        reused_photo: 0,
      });
      expect(a[0]!.bytes).toBe(files.get('/photo.jpg')!.length);
      expect(a[1]).toMatchObject({ outcome: 'decoded', reused_photo: 0 });
      expect(a[2]).toMatchObject({ outcome: 'decoded', width: 960, height: 440, image_of: 'Kitchen' });
      expect(a[2]!.tags[0]).toBe('Kitchen');
      expect(a[3]).toMatchObject({ outcome: 'decoded', image_of: 'LivingRoom' });
      expect(a[4]).toMatchObject({
        outcome: 'decoded',
        is_dark: 1,
        is_blurry: 0,
        image_of: 'Other',
        reused_photo: 0,
      });
      expect(a[4]!.tags).toEqual([]);
      expect(a[5]).toMatchObject({ outcome: 'too_small', width: 0, image_of: '' });
      expect(a[6]).toMatchObject({ outcome: 'unsupported_format', image_of: '' });
      expect(a[7]).toMatchObject({ outcome: 'too_large', bytes: 0 });
      expect(a[8]).toMatchObject({ outcome: 'not_checked' }); // 404: the check failed, nothing fetched

      // Another account posts copies: re-encoded, resized, cropped, mirrored; a different photo; a
      // dark picture (blank pictures are never compared: they would all match each other).
      const second = await createTestKey();
      const copy = await postListing(second.key, [
        '/photo-q40.jpg',
        '/photo-half.png',
        '/photo-crop.jpg',
        '/photo-mirror.jpg',
        '/other-photo.jpg',
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
        expect(row.reused_distance).toBeLessThanOrEqual(10); // PHOTO_REUSE_MAX_DISTANCE
      }
      expect(b[1]!.width).toBe(400);
      expect(b[4]).toMatchObject({ outcome: 'decoded', reused_photo: 0 });
      expect(b[5]).toMatchObject({ outcome: 'decoded', is_dark: 1, reused_photo: 0 });

      // The owner's view: contract fields, reuse as a flag only (never the other listing or account).
      const listing = await eventually(
        async () => {
          const got = await api('GET', `/api/v1/listings/${copy.listingId}`, { key: second.key });
          return got.status === 200 && got.body.images.every((i: { checked: boolean }) => i.checked)
            ? got
            : undefined;
        },
        ROWS_WITHIN_MS,
        'GET /listings/{id} with checked images',
      );
      expect(listing.body.images[1]).toEqual({
        url: `${base}/photo-half.png`,
        checked: true,
        ok: true,
        width: 400,
        height: 300,
        tags: expect.any(Array),
        image_of: expect.any(String),
        reused_photo: true,
      });
      expect(listing.body.images[4]).toMatchObject({ width: 800, reused_photo: false });
      const text = JSON.stringify(listing.body);
      expect(text).not.toContain(own.listingId);
      expect(text).not.toContain(first.account_id);
      const other = await api('GET', `/api/v1/listings/${copy.listingId}`, { key: first.key });
      expect(other.status).toBe(404);

      // The first account's listing: tags with confidences, and the failures as undecoded images.
      const mine = await eventually(
        async () => {
          const got = await api('GET', `/api/v1/listings/${own.listingId}`, { key: first.key });
          return got.status === 200 ? got : undefined;
        },
        30_000,
        'GET /listings/{id} of the first account',
      );
      expect(mine.body.images[2]).toMatchObject({ width: 960, height: 440, image_of: 'Kitchen' });
      expect(mine.body.images[2].tags[0]).toEqual({ tag: 'Kitchen', confidence: expect.any(Number) });
      expect(mine.body.images[2].tags[0].confidence).toBeGreaterThanOrEqual(0.3); // PHOTO_TAG_THRESHOLD
      expect(mine.body.images[4]).toMatchObject({ image_of: 'Other', tags: [] });
      // The photo the other account copied is flagged here too: both listings share it, whoever
      // posted first (a copy posted first must not single out the genuine listing).
      const copied = new Set(await reusedIndexes(copy.listingId));
      expect(copied.size).toBeGreaterThan(0);
      // This run's own photos (0, 1; the eval photos are on earlier runs' listings as well).
      for (const index of [0, 1]) {
        expect(mine.body.images[index].reused_photo, `image ${index}`).toBe(copied.has(index));
      }
      expect(mine.body.images[5]).toMatchObject({ checked: true, ok: true, width: null, image_of: null });
      expect(mine.body.images[8]).toMatchObject({
        checked: true,
        ok: false,
        image_of: null,
        reused_photo: false,
      });

      // The batch status summarises tags and reuse.
      const status = await api('GET', `/api/v1/listings/batches/${copy.batchId}`, { key: second.key });
      const photos = status.body.photos;
      expect(photos).toMatchObject({ analysed: 6, decoded: 6, undecodable: 0, reused: 4 });
      expect(photos.tagged + photos.abstained).toBe(6);
      expect(Object.values(photos.tags as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(
        photos.tagged,
      );
      const firstStatus = await api('GET', `/api/v1/listings/batches/${own.batchId}`, { key: first.key });
      expect(firstStatus.body.photos).toMatchObject({ analysed: 9, decoded: 5, undecodable: 3 });
      // kitchen.jpg and living-room.jpg; the generated pictures may come out as anything or Other.
      expect(firstStatus.body.photos.tags.Kitchen).toBeGreaterThanOrEqual(1);
      expect(firstStatus.body.photos.tags.LivingRoom).toBeGreaterThanOrEqual(1);
    },
    3 * ROWS_WITHIN_MS,
  );
});
