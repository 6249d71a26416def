// `image_checks`: one row per checked listing image (migrations 0031, 0032).
import { listingImageKeyColumns, type ListingImageKey } from './listing-image-key.ts';
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

/** What one check of an image URL found (the stream's checker produces it). */
export interface ImageCheckResult {
  method: 'none' | 'HEAD' | 'GET';
  is_reachable: 0 | 1;
  status_code: number;
  content_type: string;
  is_ok: 0 | 1;
  error: string;
  duration_ms: number;
}

export type ImageCheckRow = Provenance &
  ListingImageKey &
  ImageCheckResult & {
    checked_at: DateTimeText;
  };

export const imageChecksTable = defineTable<ImageCheckRow>()('image_checks', [
  ...listingImageKeyColumns,
  'checked_at',
  'method',
  'is_reachable',
  'status_code',
  'content_type',
  'is_ok',
  'error',
  'duration_ms',
  '_topic',
  '_partition',
  '_offset',
  '_item',
]);
