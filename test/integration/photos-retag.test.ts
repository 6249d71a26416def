// Re-tagging stored photos with the current tag model (stream/images/retag.ts, npm run retag): a
// photo tagged by an older model gets a new row with the current model's tags, a second run finds
// nothing left (resumable), and a photo whose bytes changed at its URL is left alone.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { createAddressPolicy, createOutboundClient } from '../../common/outbound/index.ts';
import { createDecodePool } from '../../stream/images/decode-pool.ts';
import { imageResolver } from '../../stream/images/resolver.ts';
import { retagPhotos } from '../../stream/images/retag.ts';
import { loadSceneModel } from '../../stream/images/scene-model.ts';
import { TAG_MODEL } from '../../stream/images/scene-tags.ts';
import { api, createTestKey, eventually, sampleListing, testClickHouse } from '../support/api.ts';
import { servePhotos, type PhotoServer } from '../support/photo-server.ts';

const kitchen = readFileSync(new URL('../../eval/photos/kitchen.jpg', import.meta.url));
const files = new Map<string, Buffer>();
let server: PhotoServer;
let base = '';

beforeAll(async () => {
  files.set('/kitchen.jpg', kitchen);
  files.set('/bedroom.jpg', readFileSync(new URL('../../eval/photos/bedroom.jpg', import.meta.url)));
  server = await servePhotos(files, 'retag.localhost');
  base = server.base;
});
afterAll(() => server.close());

interface Row {
  image_index: number;
  image_of: string;
  tags: string[];
  tag_model: string;
  phash: string;
}

async function rows(listingId: string): Promise<Row[]> {
  return queryRows<Row>(
    testClickHouse(),
    `SELECT image_index, image_of, tags, tag_model, toString(phash) AS phash FROM listing_images FINAL
     WHERE listing_id = {id:UUID} ORDER BY image_index`,
    { id: listingId },
  );
}

describe('re-tagging', () => {
  it('happy, error: re-tags photos of an older model once, and leaves photos whose bytes changed', async () => {
    const started = new Date(Date.now() - 5_000);
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing({ images: [`${base}/kitchen.jpg`, `${base}/bedroom.jpg`] })] },
    });
    expect(created.status).toBe(201);
    const listingId = created.body.results[0].listing_id as string;
    const stored = await eventually(
      async () => {
        const found = await rows(listingId);
        return found.length === 2 && found.every((r) => r.tag_model === TAG_MODEL) ? found : undefined;
      },
      150_000,
      'both photos analysed',
    );
    expect(stored.map((r) => r.image_of)).toEqual(['Kitchen', 'Bedroom']);

    // As an older model left them: another model name and wrong tags, analysed now.
    await testClickHouse().command({
      query: `INSERT INTO listing_images
              SELECT * REPLACE ('old-model/rooms-1' AS tag_model, 'LivingRoom' AS image_of,
                                ['LivingRoom'] AS tags, [0.5] AS tag_confidences, now() AS analysed_at)
              FROM listing_images FINAL WHERE listing_id = {id:UUID}`,
      query_params: { id: listingId },
    });
    expect((await rows(listingId)).map((r) => r.tag_model)).toEqual([
      'old-model/rooms-1',
      'old-model/rooms-1',
    ]);
    // The bedroom photo's URL now serves another picture: its row describes the old one.
    files.set('/bedroom.jpg', await sharp(kitchen).flop().modulate({ hue: 90 }).jpeg().toBuffer());

    const model = await loadSceneModel(process.env.PHOTO_MODEL_PATH!);
    const pool = createDecodePool({
      size: 1,
      timeoutMs: 10_000,
      limits: { maxPixels: 40_000_000, minSide: 32 },
    });
    const outbound = createOutboundClient({
      policy: createAddressPolicy(['127.0.0.0/8']),
      resolver: imageResolver,
    });
    const options = {
      since: started,
      perSecond: 50,
      threshold: 0.33,
      maxBytes: 10 * 1024 * 1024,
      timeoutMs: 5_000,
      reuseMaxDistance: 10,
    };
    try {
      const deps = { clickhouse: testClickHouse(), outbound, model, pool };
      const first = await retagPhotos(deps, options);
      expect(first.retagged).toBeGreaterThanOrEqual(1);
      const after = await rows(listingId);
      // The re-tagged row keeps the photo's 64-bit hash exactly (not rounded to a double).
      expect(after[0]).toMatchObject({ image_of: 'Kitchen', tag_model: TAG_MODEL, phash: stored[0]!.phash });
      expect(after[1]).toMatchObject({ image_of: 'LivingRoom', tag_model: 'old-model/rooms-1' });
      // Resumable: what was re-tagged is not selected again.
      const again = await retagPhotos(deps, options);
      expect((await rows(listingId))[0]!.tag_model).toBe(TAG_MODEL);
      expect(again.retagged).toBe(0);
    } finally {
      await pool.close();
      await model.release();
    }
  });
});
