// The listing lifecycle tables (migration 0050): `listing_status_changes`, one row per applied
// status change, written by the stream's status processor; `listing_states`, the current state per
// listing (read with FINAL), kept by materialized views and by the processor for re-sends.
import type { ListingStatus, StatusSource } from '../domain/lifecycle.ts';
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

/** The listing a lifecycle row is about, copied from `listings` (both tables lead with it). */
export interface ListingIdentity {
  listing_id: string;
  account_id: string;
  is_test: 0 | 1;
  external_id: string;
  listed_at: DateTimeText;
  property_type: string;
  city: string;
  neighbourhood: string;
}

const listingIdentityColumns = [
  'listing_id',
  'account_id',
  'is_test',
  'external_id',
  'listed_at',
  'property_type',
  'city',
  'neighbourhood',
] as const satisfies readonly (keyof ListingIdentity)[];

export interface ListingStatusChangeRow extends ListingIdentity, Provenance {
  status: ListingStatus;
  previous_status: ListingStatus;
  changed_at: DateTimeText;
  recorded_at: DateTimeText;
  source: StatusSource;
  snapshot_id: string;
  rent_agreed: number | null;
  rent_currency: 'TZS' | 'USD' | null;
  rent_agreed_tzs: number | null;
  transition: 'none' | 'exit' | 'relabel' | 'return' | 'relist';
  spell_started_at: DateTimeText;
  exited_at: DateTimeText;
  exit_days: number;
  version: number;
}

export const listingStatusChangesTable = defineTable<ListingStatusChangeRow>()('listing_status_changes', [
  ...listingIdentityColumns,
  'status',
  'previous_status',
  'changed_at',
  'recorded_at',
  'source',
  'snapshot_id',
  'rent_agreed',
  'rent_currency',
  'rent_agreed_tzs',
  'transition',
  'spell_started_at',
  'exited_at',
  'exit_days',
  'version',
  '_topic',
  '_partition',
  '_offset',
  '_item',
]);

export interface ListingStateRow extends ListingIdentity {
  status: ListingStatus;
  status_at: DateTimeText;
  spell_started_at: DateTimeText;
  exited_at: DateTimeText;
  exit_days: number;
  updated_at: DateTimeText;
  version: number;
}

export const listingStatesTable = defineTable<ListingStateRow>()('listing_states', [
  ...listingIdentityColumns,
  'status',
  'status_at',
  'spell_started_at',
  'exited_at',
  'exit_days',
  'updated_at',
  'version',
]);
