// A row of listing_status_changes (common/warehouse/lifecycle.ts) for one applied change.
import { listingIdentityRow, type ListingState } from '../../common/lifecycle/states.ts';
import type { ListingStatusChangeRow } from '../../common/warehouse/lifecycle.ts';
import type { Provenance } from '../offset-consumer.ts';
import type { ChangeEffect, StatusChange } from './transition.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** `before` is the state the change applied to, `after` the state it leaves. */
export function changeRow(
  before: ListingState,
  effect: ChangeEffect,
  after: ListingState,
  change: StatusChange,
  provenance: Provenance,
): ListingStatusChangeRow {
  return {
    ...listingIdentityRow(before),
    status: change.status,
    previous_status: effect.previous_status,
    changed_at: iso(change.at),
    recorded_at: iso(change.recordedAt),
    source: change.source,
    snapshot_id: change.snapshotId ?? '',
    rent_agreed: change.rentAgreed ?? null,
    rent_currency: change.rentAgreed !== undefined ? (change.currency ?? 'TZS') : null,
    rent_agreed_tzs: change.rentAgreedTzs ?? null,
    transition: effect.transition,
    spell_started_at: iso(effect.spell_started_at),
    exited_at: iso(effect.exited_at),
    exit_days: effect.exit_days,
    version: after.version,
    ...provenance,
  };
}
