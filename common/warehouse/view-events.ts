// `view_events`: one row per view event, enriched with the viewed listing's place (migration 0003)
// and owner (0051).
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

export type ViewEventRow = Provenance & {
  event_id: string;
  listing_id: string;
  account_id: string;
  is_test: 0 | 1;
  viewed_at: DateTimeText;
  received_at: DateTimeText;
  /** '0' (and city '', type 'unknown') when the stream did not know the listing yet. */
  h3_index: string;
  city: string;
  neighbourhood: string;
  property_type: string;
  /** The viewed listing's account ('' when unknown at store time): market share counts by it. */
  listing_account_id: string;
};

export const viewEventsTable = defineTable<ViewEventRow>()('view_events', [
  'event_id',
  'listing_id',
  'account_id',
  'is_test',
  'viewed_at',
  'received_at',
  'h3_index',
  'city',
  'neighbourhood',
  'property_type',
  'listing_account_id',
  '_topic',
  '_partition',
  '_offset',
  '_item',
]);
