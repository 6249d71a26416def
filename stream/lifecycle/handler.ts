// Status messages (rls.listing-status.v1) → one row per applied change in listing_status_changes
// (the materialized views of 0050/0052 keep listing_states and the market aggregates from it), and
// listing_states rows for re-sends that change nothing but the expiry clock.
// - Messages are keyed by account, so one account's changes arrive in order on one partition and
//   this handler sees them in order; states are read once per batch and carried forward in memory.
// - Items already stored at their position (a replayed range) are skipped: the states read from
//   ClickHouse already include them.
// - A repeated status (already rented → rented) is a no-op; a change dated before the listing's
//   last change is refused (quarantine): the API checks both, but only against stored states.
// - Snapshot withdrawals and expiries carry unless_updated_after: a listing re-sent or changed since
//   the job looked, or already off the market, is left alone.
// - A re-send of a listing that is off the market returns it (status active, source resend).
import type { KafkaMessage } from 'kafkajs';
import type { Logger } from '../../common/logger.ts';
import { isOnMarket, type StatusItem, type StatusMessage } from '../../common/domain/lifecycle.ts';
import { stateRow, type ListingState } from '../../common/lifecycle/states.ts';
import { toTzs, type FxTable } from '../enrich/fx.ts';
import type { BatchContext, BatchHandler, Provenance } from '../offset-consumer.ts';
import type { ListingStateRow, ListingStatusChangeRow } from '../../common/warehouse/lifecycle.ts';
import type { ClickHouseWriter } from '../sink/clickhouse-writer.ts';
import type { Quarantine, QuarantineEntry } from '../sink/quarantine.ts';
import { decodeStatusMessage } from './decode.ts';
import { changeRow } from './rows.ts';
import { applyChange, type StatusChange } from './transition.ts';

export interface StatusHandlerDeps {
  readStates(ids: string[]): Promise<Map<string, ListingState>>;
  /** Writer of listing_status_changes. */
  changes: ClickHouseWriter<ListingStatusChangeRow>;
  /** Writer of listing_states (re-sends and repeated updates: the expiry clock only). */
  states: ClickHouseWriter<ListingStateRow>;
  quarantine: Quarantine;
  fx: FxTable;
  logger: Logger;
  /** Listings that just left the market, by account (the ingest API then treats a re-send today as news). */
  onLeft?(accountId: string, listingIds: string[]): Promise<void>;
  /** Accounts whose changes were just stored: their next analytics answers must include them. */
  noteStored?(accountIds: string[]): Promise<void>;
  now?: () => number;
}

/** ClickHouse keeps whole seconds; computing with the same values keeps days and checks exact. */
const seconds = (ms: number) => Math.floor(ms / 1000) * 1000;

export function createStatusHandler(deps: StatusHandlerDeps): BatchHandler {
  return {
    async handle(messages: KafkaMessage[], context: BatchContext) {
      const recordedAt = seconds(deps.now?.() ?? Date.now());
      const bad: QuarantineEntry[] = [];
      const items: {
        provenance: Provenance;
        head: StatusMessage;
        kind: 'status' | 'seen';
        value: { listing_id: string } & Partial<StatusItem>;
      }[] = [];
      for (const message of messages) {
        for (const decoded of decodeStatusMessage(message)) {
          if (context.isStored(message, decoded.item)) continue;
          const provenance = context.provenance(message, decoded.item);
          if (!decoded.ok) bad.push({ payload: decoded.payload, error: decoded.error, provenance });
          else items.push({ provenance, head: decoded.head, kind: decoded.kind, value: decoded.value });
        }
      }
      const ids = items.map((i) => i.value.listing_id);
      const current = ids.length
        ? await context.retry('reading listing states', () => deps.readStates(ids))
        : new Map<string, ListingState>();

      const changes: ListingStatusChangeRow[] = [];
      const touched = new Map<string, ListingState>();
      const left = new Map<string, string[]>(); // account → its listings that left the market
      const sourceOf = new Map<ListingStatusChangeRow, (typeof items)[number]>();
      const touch = (state: ListingState, at: number) => {
        const next = { ...state, updated_at: Math.max(state.updated_at, at), version: state.version + 1 };
        current.set(state.listing_id, next);
        touched.set(state.listing_id, next);
      };
      const record = (item: (typeof items)[number], state: ListingState, change: StatusChange) => {
        const applied = applyChange(state, change);
        if (applied.kind === 'same') {
          if (change.source === 'api') touch(state, recordedAt); // an update is activity
          return;
        }
        if (applied.kind === 'out_of_order') {
          bad.push({
            payload: JSON.stringify({ ...item.head, items: [item.value] }),
            error: `at ${new Date(change.at).toISOString()} is before the listing's last status change (${new Date(state.status_at).toISOString()})`,
            provenance: item.provenance,
          });
          return;
        }
        const row = changeRow(state, applied.effect, applied.state, change, item.provenance);
        changes.push(row);
        sourceOf.set(row, item);
        current.set(state.listing_id, applied.state);
        touched.delete(state.listing_id); // the change's own state row (via the view) is newer
        if (isOnMarket(state.status) && !isOnMarket(change.status)) {
          const ids = left.get(state.account_id) ?? [];
          ids.push(state.listing_id);
          left.set(state.account_id, ids);
        }
      };

      for (const item of items) {
        const { head, value } = item;
        const state = current.get(value.listing_id);
        if (!state || state.account_id !== head.account_id || state.is_test !== head.is_test) {
          // A re-send of a listing not stored yet is the listing's own first push: nothing to do.
          if (item.kind !== 'seen') {
            bad.push({
              payload: JSON.stringify({ ...head, items: [value] }),
              error: 'unknown listing for this account and mode',
              provenance: item.provenance,
            });
          }
          continue;
        }
        const receivedAt = seconds(Date.parse(head.received_at));
        if (item.kind === 'seen') {
          if (isOnMarket(state.status)) touch(state, receivedAt);
          else record(item, state, { status: 'active', at: receivedAt, recordedAt, source: 'resend' });
          continue;
        }
        const guard = value.unless_updated_after;
        if (guard !== undefined && (!isOnMarket(state.status) || state.updated_at > Date.parse(guard))) {
          continue; // re-sent, changed or off the market since the job looked: overtaken
        }
        const rent =
          value.status === 'rented' && value.rent_agreed !== undefined
            ? { rentAgreed: value.rent_agreed, currency: value.currency ?? 'TZS' }
            : {};
        record(item, state, {
          status: value.status!,
          at: seconds(Date.parse(value.at!)),
          recordedAt,
          source: head.source,
          snapshotId: head.snapshot_id,
          ...rent,
          ...(rent.rentAgreed !== undefined
            ? { rentAgreedTzs: toTzs(deps.fx, rent.rentAgreed, rent.currency).price_tzs }
            : {}),
        });
      }

      const [written, stateWrite] = await Promise.all([
        deps.changes.write(changes, context.fence),
        deps.states.write([...touched.values()].map(stateRow), context.fence),
        deps.quarantine.rows(bad, context.fence),
      ]);
      if (written.rejected.length) {
        await deps.quarantine.rows(
          written.rejected.map(({ row, error }) => {
            const item = sourceOf.get(row)!;
            return {
              payload: JSON.stringify({ ...item.head, items: [item.value] }),
              error: `refused by ClickHouse: ${error}`,
              provenance: item.provenance,
            };
          }),
          context.fence,
        );
      }
      // State rows are built from states ClickHouse gave us; a refusal is a bug, not bad input. Only
      // the expiry clock of those listings is behind, so log it rather than stall the partition.
      for (const { row, error } of stateWrite.rejected) {
        deps.logger.error('listing state refused', { listing_id: row.listing_id, error });
      }
      const refused = new Set(written.rejected.map((r) => r.row));
      const storedFor = changes.filter((row) => !refused.has(row)).map((row) => row.account_id);
      if (storedFor.length && deps.noteStored) {
        await context.retry('noting the accounts stored', () => deps.noteStored!(storedFor));
      }
      if (left.size && deps.onLeft) {
        await context.retry('forgetting re-send marks', () =>
          Promise.all([...left].map(([account, ids]) => deps.onLeft!(account, ids))),
        );
      }
    },
  };
}
