// The `images` of GET /listings/{id} (CONTRACT "Listing lifecycle"): one entry per image URL of the
// listing with the image check (image_checks) and the photo analysis (listing_images). The other
// listing behind `reused_photo` is never shown: it belongs to another account (operators find it in
// listing_images.reused_listing_id). `reused_photo` flags both listings that share a photo,
// whichever was first (listing_image_reuses holds the matches under the earlier one): flagging the
// later one only would let a copy posted first mark a competitor's genuine photo.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { imageChecksTable } from '../../common/warehouse/image-checks.ts';
import { listingImageReusesTable, listingImagesTable } from '../../common/warehouse/listing-images.ts';
import { defineQuery } from '../../common/warehouse/query.ts';

export interface ListingImage {
  url: string;
  checked: boolean;
  ok: boolean | null;
  width: number | null;
  height: number | null;
  tags: { tag: string; confidence: number }[];
  image_of: string | null;
  reused_photo: boolean;
}

// An image without an analysis row has nulls there (join_use_nulls), arrays stay empty.
const imageRecord = z.object({
  image_index: z.number(),
  is_ok: z.number().nullable(),
  outcome: z.string().nullable(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  tags: z.array(z.string()),
  tag_confidences: z.array(z.number()),
  image_of: z.string().nullable(),
  reused_photo: z.number(),
});
export type ImageRecord = z.infer<typeof imageRecord>;

// Both tables are sorted by (listing_id, image_index): two point reads.
const imagesQuery = defineQuery({
  name: 'listing_image_records',
  params: z.object({ id: z.string() }),
  row: imageRecord,
  sql: `
  SELECT c.image_index AS image_index, c.is_ok AS is_ok, p.outcome AS outcome, p.width AS width,
         p.height AS height, p.tags AS tags, p.tag_confidences AS tag_confidences,
         p.image_of AS image_of,
         greatest(ifNull(p.reused_photo, 0), ifNull(r.copied, 0)) AS reused_photo
  FROM (SELECT image_index, is_ok FROM ${imageChecksTable.name} FINAL WHERE listing_id = {id:UUID}) AS c
  LEFT JOIN (
    SELECT image_index, toString(outcome) AS outcome, width, height, tags, tag_confidences,
           image_of, reused_photo
    FROM ${listingImagesTable.name} FINAL WHERE listing_id = {id:UUID}
  ) AS p ON p.image_index = c.image_index
  LEFT JOIN (
    SELECT image_index, toUInt8(1) AS copied
    FROM ${listingImageReusesTable.name} WHERE listing_id = {id:UUID}
    GROUP BY image_index
  ) AS r ON r.image_index = c.image_index
  SETTINGS join_use_nulls = 1`,
});

/** The check and analysis of every image of a listing, by image index. */
export async function imageRecords(
  clickhouse: ClickHouseClient,
  listingId: string,
): Promise<Map<number, ImageRecord>> {
  const { rows: records } = await imagesQuery.run(clickhouse, { id: listingId });
  return new Map(records.map((r) => [Number(r.image_index), r]));
}

/** The contract's images[] for a listing whose image URLs are `urls` (in listing order). */
export function presentImages(urls: readonly string[], records: Map<number, ImageRecord>): ListingImage[] {
  return urls.map((url, index) => presentImage(url, records.get(index)));
}

/** Both at once, for a caller that has the URLs already. */
export async function listingImages(
  clickhouse: ClickHouseClient,
  listingId: string,
  urls: readonly string[],
): Promise<ListingImage[]> {
  return urls.length ? presentImages(urls, await imageRecords(clickhouse, listingId)) : [];
}

function presentImage(url: string, r: ImageRecord | undefined): ListingImage {
  const decoded = r?.outcome === 'decoded';
  return {
    url,
    checked: r !== undefined,
    ok: r === undefined ? null : Number(r.is_ok) === 1,
    width: decoded ? Number(r.width) : null,
    height: decoded ? Number(r.height) : null,
    tags: decoded
      ? r.tags.map((tag, i) => ({
          tag,
          confidence: Math.round(Number(r.tag_confidences[i] ?? 0) * 1000) / 1000,
        }))
      : [],
    // Other when the model abstained; null when the photo was not decoded or not tagged.
    image_of: decoded && r.image_of ? r.image_of : null,
    reused_photo: decoded && Number(r.reused_photo) === 1,
  };
}
