// Re-tagging stored photos with the current tag model (npm run retag; docs/photos.md,
// "Re-tagging"). Selects decoded photos whose tag_model is not the current one, oldest analysis
// first within `since`, page by page in key order, and writes each a new listing_images row with
// the new tags (the table keeps the latest row per image). Photos are downloaded again: the image
// process keeps no photo bytes (a listing's photos are the integrator's, served from their
// servers; caching them would hold every tenant's photos here). A photo whose bytes changed since
// it was analysed (its perceptual hash moved beyond the reuse distance) is left alone: the stored
// row describes the old photo, and a new analysis belongs to a re-sent listing.
// Resumable by construction: rows already re-tagged no longer match, so a stopped run started
// again continues where it was; a photo that fails (download, decode) is counted and retried by the
// next run. Rate-limited to `perSecond` photos.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import type { OutboundClient } from '../../common/outbound/index.ts';
import {
  listingImageRowSchema,
  listingImagesTable,
  type ListingImageRow,
} from '../../common/warehouse/listing-images.ts';
import { defineQuery } from '../../common/warehouse/query.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import type { DecodePool } from './decode-pool.ts';
import { fetchPhoto } from './fetch-photo.ts';
import { hammingDistance, phash } from './phash.ts';
import type { SceneModel } from './scene-model.ts';
import { tagPhoto, TAG_MODEL } from './scene-tags.ts';
import { setTimeout as sleep } from 'node:timers/promises';

// Key order from the last row of the previous page: each page is a range read of the sort key.
const pageQuery = defineQuery({
  name: 'retag_page',
  params: z.object({
    model: z.string(),
    since: z.string(),
    listing: z.string(),
    index: z.number().int(),
    limit: z.number().int(),
  }),
  row: listingImageRowSchema,
  // The rows go back into the table, and their hashes are compared bit by bit.
  exactIntegers: true,
  sql: `SELECT ${listingImagesTable.columns.join(', ')}
       FROM ${listingImagesTable.name} FINAL
       WHERE outcome = 'decoded' AND tag_model != {model:String} AND analysed_at >= {since:DateTime}
         AND (listing_id, image_index) > ({listing:UUID}, {index:Int32})
       ORDER BY listing_id, image_index
       LIMIT {limit:UInt32}`,
  // A background job: as long as the client waits for any request.
  maxSeconds: 30,
});

export interface RetagOptions {
  /** Only photos analysed at or after this time (UTC). */
  since?: Date;
  perSecond: number;
  pageSize?: number;
  threshold: number;
  maxBytes: number;
  timeoutMs: number;
  reuseMaxDistance: number;
  /** Progress after each page. */
  onPage?: (counts: RetagCounts) => void;
}

export interface RetagCounts {
  selected: number;
  retagged: number;
  failed: number;
  changed: number;
}

export async function retagPhotos(
  deps: { clickhouse: ClickHouseClient; outbound: OutboundClient; model: SceneModel; pool: DecodePool },
  options: RetagOptions,
): Promise<RetagCounts> {
  const counts: RetagCounts = { selected: 0, retagged: 0, failed: 0, changed: 0 };
  const pageSize = options.pageSize ?? 200;
  const since = (options.since ?? new Date(0)).toISOString().slice(0, 19).replace('T', ' ');
  const interval = 1000 / options.perSecond;
  let next = Date.now();
  let after = { listing: '00000000-0000-0000-0000-000000000000', index: -1 };
  for (;;) {
    const { rows: page } = await pageQuery.run(deps.clickhouse, {
      model: TAG_MODEL,
      since,
      listing: after.listing,
      index: after.index,
      limit: pageSize,
    });
    if (!page.length) return counts;
    const rows: ListingImageRow[] = [];
    for (const row of page) {
      counts.selected++;
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
      next = Math.max(next, Date.now()) + interval;
      const updated = await retagOne(deps, row, options);
      if (updated === 'failed' || updated === 'changed') counts[updated]++;
      else {
        rows.push(updated);
        counts.retagged++;
      }
    }
    await insertRows(deps.clickhouse, listingImagesTable, rows);
    const last = page.at(-1)!;
    after = { listing: last.listing_id, index: last.image_index };
    options.onPage?.({ ...counts });
  }
}

async function retagOne(
  deps: { outbound: OutboundClient; model: SceneModel; pool: DecodePool },
  row: ListingImageRow,
  options: RetagOptions,
): Promise<ListingImageRow | 'failed' | 'changed'> {
  const fetched = await fetchPhoto(deps.outbound, row.url, {
    maxBytes: options.maxBytes,
    timeoutMs: options.timeoutMs,
  });
  if (!fetched.ok) return 'failed';
  const { decoded } = await deps.pool.decode(row.account_id, fetched.body, (result) => ({ decoded: result }));
  if (!decoded.ok) return 'failed';
  const photo = decoded.photo;
  if (hammingDistance(phash(photo.hashGrey), BigInt(row.phash)) > options.reuseMaxDistance) return 'changed';
  const tags = (await tagPhoto(photo, deps.model, options.threshold))!;
  return {
    ...row,
    analysed_at: new Date().toISOString().slice(0, 19).replace('T', ' '),
    tags: tags.tags.map((t) => t.tag),
    tag_confidences: tags.tags.map((t) => t.confidence),
    image_of: tags.image_of,
    tag_model: TAG_MODEL,
  };
}
