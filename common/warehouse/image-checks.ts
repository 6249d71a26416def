// `image_checks`: one row per checked listing image (migrations 0031, 0032).
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

export type ImageCheckRow = Provenance & {
  listing_id: string;
  image_index: number;
  batch_id: string;
  account_id: string;
  is_test: 0 | 1;
  url: string;
  checked_at: DateTimeText;
  method: 'none' | 'HEAD' | 'GET';
  is_reachable: 0 | 1;
  status_code: number;
  content_type: string;
  is_ok: 0 | 1;
  error: string;
  duration_ms: number;
};

export const imageChecksTable = defineTable<ImageCheckRow>()('image_checks', [
  'listing_id',
  'image_index',
  'batch_id',
  'account_id',
  'is_test',
  'url',
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
