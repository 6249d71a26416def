// `listing_images`: one row per listing image as the photo analysis saw it (migrations 0080, 0081, 0083):
// decode facts, perceptual hashes, quality flags, RESO ImageOf tags and cross-account reuse.
import { z } from 'zod';
import { listingImageKeyColumns, listingImageKeySchema, type ListingImageKey } from './listing-image-key.ts';
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

export const photoOutcomes = [
  'decoded',
  'not_checked',
  'download_failed',
  'too_large',
  'not_an_image',
  'too_many_pixels',
  'too_small',
  'unsupported_format',
  'too_many_scans',
  'decode_timeout',
] as const;
export type PhotoOutcome = (typeof photoOutcomes)[number];

export type ListingImageRow = Provenance &
  ListingImageKey & {
    analysed_at: DateTimeText;
    outcome: PhotoOutcome;
    error: string;
    bytes: number;
    format: string;
    width: number;
    height: number;
    /** UInt64 as a decimal string (64-bit DCT perceptual hash; '0' when not decoded). */
    phash: string;
    phash_mirrored: string;
    brightness: number;
    is_dark: 0 | 1;
    is_overexposed: 0 | 1;
    sharpness: number;
    is_blurry: 0 | 1;
    tags: string[];
    tag_confidences: number[];
    /** The RESO ImageOf value, 'Other' when the model abstained, '' when not tagged. */
    image_of: string;
    tag_model: string;
    reused_photo: 0 | 1;
    reused_listing_id: string | null;
    reused_account_id: string;
    reused_image_index: number;
    reused_distance: number;
    analyse_ms: number;
  };

const flag = z.union([z.literal(0), z.literal(1)]);

/** A whole row as ClickHouse's JSON output renders it (UInt64 quoted), for reads that write it back. */
export const listingImageRowSchema: z.ZodType<ListingImageRow> = listingImageKeySchema.extend({
  analysed_at: z.string(),
  outcome: z.enum(photoOutcomes),
  error: z.string(),
  bytes: z.number(),
  format: z.string(),
  width: z.number(),
  height: z.number(),
  phash: z.string(),
  phash_mirrored: z.string(),
  brightness: z.number(),
  is_dark: flag,
  is_overexposed: flag,
  sharpness: z.number(),
  is_blurry: flag,
  tags: z.array(z.string()),
  tag_confidences: z.array(z.number()),
  image_of: z.string(),
  tag_model: z.string(),
  reused_photo: flag,
  reused_listing_id: z.string().nullable(),
  reused_account_id: z.string(),
  reused_image_index: z.number(),
  reused_distance: z.number(),
  analyse_ms: z.number(),
  _topic: z.string(),
  _partition: z.number(),
  _offset: z.string(),
  _item: z.number(),
});

export const listingImagesTable = defineTable<ListingImageRow>()('listing_images', [
  ...listingImageKeyColumns,
  'analysed_at',
  'outcome',
  'error',
  'bytes',
  'format',
  'width',
  'height',
  'phash',
  'phash_mirrored',
  'brightness',
  'is_dark',
  'is_overexposed',
  'sharpness',
  'is_blurry',
  'tags',
  'tag_confidences',
  'image_of',
  'tag_model',
  'reused_photo',
  'reused_listing_id',
  'reused_account_id',
  'reused_image_index',
  'reused_distance',
  'analyse_ms',
  '_topic',
  '_partition',
  '_offset',
  '_item',
]);

/**
 * `listing_image_reuses` (migration 0082): each reuse match filed under the earlier photo, kept by a
 * materialized view from `listing_images`, so both listings of a shared photo are flagged.
 */
export interface ListingImageReuseRow {
  listing_id: string;
  image_index: number;
  reused_by_listing_id: string;
  reused_by_image_index: number;
  is_test: 0 | 1;
  analysed_at: DateTimeText;
}

export const listingImageReusesTable = defineTable<ListingImageReuseRow>()('listing_image_reuses', [
  'listing_id',
  'image_index',
  'reused_by_listing_id',
  'reused_by_image_index',
  'is_test',
  'analysed_at',
]);
