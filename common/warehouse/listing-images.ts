// `listing_images`: one row per listing image as the photo analysis saw it (migrations 0080, 0081, 0083):
// decode facts, perceptual hashes, quality flags, RESO ImageOf tags and cross-account reuse.
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

export type ListingImageRow = Provenance & {
  listing_id: string;
  image_index: number;
  batch_id: string;
  account_id: string;
  is_test: 0 | 1;
  url: string;
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

export const listingImagesTable = defineTable<ListingImageRow>()('listing_images', [
  'listing_id',
  'image_index',
  'batch_id',
  'account_id',
  'is_test',
  'url',
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
