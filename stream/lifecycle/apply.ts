// A batch's status items applied, in order, to the listing states read for it (handler.ts): the
// change rows to store, the states whose expiry clock alone moved, the listings that left the
// market, and the items refused (quarantine).
// - A repeated status (already rented → rented) is a no-op; a change dated before the listing's
//   last change is refused: the API checks both, but only against stored states.
// - Snapshot withdrawals and expiries carry unless_updated_after: a listing re-sent or changed since
//   the job looked, or already off the market, is left alone.
// - A re-send of a listing that is off the market returns it (status active, source resend).
import { isOnMarket, type StatusItem, type StatusMessage } from '../../common/domain/lifecycle.ts';
import type { ListingState } from '../../common/lifecycle/states.ts';
import type { ListingStatusChangeRow } from '../../common/warehouse/lifecycle.ts';
import { toTzs, type FxTable } from '../enrich/fx.ts';
import type { Provenance } from '../offset-consumer.ts';
import type { QuarantineEntry } from '../sink/quarantine.ts';
import { changeRow } from './rows.ts';
import { applyChange, type StatusChange } from './transition.ts';

/** ClickHouse keeps whole seconds; computing with the same values keeps days and checks exact. */
export const seconds = (ms: number) => Math.floor(ms / 1000) * 1000;

/** A decoded item not stored yet: a status change, or a re-send seen by the ingest API. */
export interface StatusBatchItem {
  provenance: Provenance;
  head: StatusMessage;
  kind: 'status' | 'seen';
  value: { listing_id: string } & Partial<StatusItem>;
}

export interface AppliedBatch {
  /** Change rows to store (listing_status_changes), in order. */
  changes: ListingStatusChangeRow[];
  /** Listings whose state changed without a change row (the expiry clock): their newest state. */
  touched: Map<string, ListingState>;
  /** Account → its listings that left the market. */
  left: Map<string, string[]>;
  /** The item each change row came from (to quarantine it if ClickHouse refuses the row). */
  sourceOf: Map<ListingStatusChangeRow, StatusBatchItem>;
}

/** Applies `items` in order to `current` (updated as it goes); refused items are added to `bad`. */
export function applyItems(
  items: StatusBatchItem[],
  current: Map<string, ListingState>,
  recordedAt: number,
  fx: FxTable,
  bad: QuarantineEntry[],
): AppliedBatch {
  const batch: Batch = {
    current,
    bad,
    recordedAt,
    changes: [],
    touched: new Map(),
    left: new Map(),
    sourceOf: new Map(),
  };
  for (const item of items) applyItem(batch, item, fx);
  const { changes, touched, left, sourceOf } = batch;
  return { changes, touched, left, sourceOf };
}

interface Batch extends AppliedBatch {
  current: Map<string, ListingState>;
  bad: QuarantineEntry[];
  recordedAt: number;
}

function applyItem(batch: Batch, item: StatusBatchItem, fx: FxTable): void {
  const { head, value } = item;
  const { recordedAt } = batch;
  const state = batch.current.get(value.listing_id);
  if (!state || state.account_id !== head.account_id || state.is_test !== head.is_test) {
    // A re-send of a listing not stored yet is the listing's own first push: nothing to do.
    if (item.kind !== 'seen') {
      batch.bad.push({
        payload: JSON.stringify({ ...head, items: [value] }),
        error: 'unknown listing for this account and mode',
        provenance: item.provenance,
      });
    }
    return;
  }
  const receivedAt = seconds(Date.parse(head.received_at));
  if (item.kind === 'seen') {
    if (isOnMarket(state.status)) touch(batch, state, receivedAt);
    else record(batch, item, state, { status: 'active', at: receivedAt, recordedAt, source: 'resend' });
    return;
  }
  const guard = value.unless_updated_after;
  if (guard !== undefined && (!isOnMarket(state.status) || state.updated_at > Date.parse(guard))) {
    return; // re-sent, changed or off the market since the job looked: overtaken
  }
  const rent =
    value.status === 'rented' && value.rent_agreed !== undefined
      ? { rentAgreed: value.rent_agreed, currency: value.currency ?? 'TZS' }
      : {};
  record(batch, item, state, {
    status: value.status!,
    at: seconds(Date.parse(value.at!)),
    recordedAt,
    source: head.source,
    snapshotId: head.snapshot_id,
    ...rent,
    ...(rent.rentAgreed !== undefined
      ? { rentAgreedTzs: toTzs(fx, rent.rentAgreed, rent.currency).price_tzs }
      : {}),
  });
}

/** Activity without a change: the listing's expiry clock moves. */
function touch(batch: Batch, state: ListingState, at: number): void {
  const next = { ...state, updated_at: Math.max(state.updated_at, at), version: state.version + 1 };
  batch.current.set(state.listing_id, next);
  batch.touched.set(state.listing_id, next);
}

function record(batch: Batch, item: StatusBatchItem, state: ListingState, change: StatusChange): void {
  const applied = applyChange(state, change);
  if (applied.kind === 'same') {
    if (change.source === 'api') touch(batch, state, batch.recordedAt); // an update is activity
    return;
  }
  if (applied.kind === 'out_of_order') {
    batch.bad.push({
      payload: JSON.stringify({ ...item.head, items: [item.value] }),
      error: `at ${new Date(change.at).toISOString()} is before the listing's last status change (${new Date(state.status_at).toISOString()})`,
      provenance: item.provenance,
    });
    return;
  }
  const row = changeRow(state, applied.effect, applied.state, change, item.provenance);
  batch.changes.push(row);
  batch.sourceOf.set(row, item);
  batch.current.set(state.listing_id, applied.state);
  batch.touched.delete(state.listing_id); // the change's own state row (via the view) is newer
  if (isOnMarket(state.status) && !isOnMarket(change.status)) {
    const ids = batch.left.get(state.account_id) ?? [];
    ids.push(state.listing_id);
    batch.left.set(state.account_id, ids);
  }
}
