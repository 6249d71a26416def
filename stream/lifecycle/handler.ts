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
import { stateRow, type ListingState } from '../../common/lifecycle/states.ts';
import type { FxTable } from '../enrich/fx.ts';
import type { BatchContext, BatchHandler } from '../offset-consumer.ts';
import type { ListingStateRow, ListingStatusChangeRow } from '../../common/warehouse/lifecycle.ts';
import type { ClickHouseWriter } from '../sink/clickhouse-writer.ts';
import type { Quarantine, QuarantineEntry } from '../sink/quarantine.ts';
import { decodeStatusMessage } from './decode.ts';
import { applyItems, seconds, type AppliedBatch, type StatusBatchItem } from './apply.ts';

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

export function createStatusHandler(deps: StatusHandlerDeps): BatchHandler {
  return {
    async handle(messages: KafkaMessage[], context: BatchContext) {
      const recordedAt = seconds(deps.now?.() ?? Date.now());
      const { items, bad } = decodeNotStored(messages, context);
      const current = await readStates(deps, items, context);
      const applied = applyItems(items, current, recordedAt, deps.fx, bad);
      const refused = await writeRows(deps, applied, bad, context);
      await noteStored(deps, applied, refused, context);
      await forgetResendMarks(deps, applied, context);
    },
  };
}

/** Decodes the batch, skipping items already stored at their position (a replayed range). */
function decodeNotStored(messages: KafkaMessage[], context: BatchContext) {
  const bad: QuarantineEntry[] = [];
  const items: StatusBatchItem[] = [];
  for (const message of messages) {
    for (const decoded of decodeStatusMessage(message)) {
      if (context.isStored(message, decoded.item)) continue;
      const provenance = context.provenance(message, decoded.item);
      if (!decoded.ok) bad.push({ payload: decoded.payload, error: decoded.error, provenance });
      else items.push({ provenance, head: decoded.head, kind: decoded.kind, value: decoded.value });
    }
  }
  return { items, bad };
}

/** The stored states of the batch's listings, read once and carried forward in memory. */
async function readStates(
  deps: StatusHandlerDeps,
  items: StatusBatchItem[],
  context: BatchContext,
): Promise<Map<string, ListingState>> {
  const ids = items.map((i) => i.value.listing_id);
  return ids.length
    ? await context.retry('reading listing states', () => deps.readStates(ids))
    : new Map<string, ListingState>();
}

/**
 * Writes the change rows, the touched states and the quarantined items; quarantines the change rows
 * ClickHouse refuses, and returns them.
 */
async function writeRows(
  deps: StatusHandlerDeps,
  applied: AppliedBatch,
  bad: QuarantineEntry[],
  context: BatchContext,
): Promise<Set<ListingStatusChangeRow>> {
  const [written, stateWrite] = await Promise.all([
    deps.changes.write(applied.changes, context.fence),
    deps.states.write([...applied.touched.values()].map(stateRow), context.fence),
    deps.quarantine.rows(bad, context.fence),
  ]);
  if (written.rejected.length) {
    await deps.quarantine.rows(
      written.rejected.map(({ row, error }) => {
        const item = applied.sourceOf.get(row)!;
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
  return new Set(written.rejected.map((r) => r.row));
}

/** The accounts whose changes were stored: their next analytics answers must include them. */
async function noteStored(
  deps: StatusHandlerDeps,
  applied: AppliedBatch,
  refused: Set<ListingStatusChangeRow>,
  context: BatchContext,
): Promise<void> {
  const storedFor = applied.changes.filter((row) => !refused.has(row)).map((row) => row.account_id);
  if (storedFor.length && deps.noteStored) {
    await context.retry('noting the accounts stored', () => deps.noteStored!(storedFor));
  }
}

/** Listings that left the market: a re-send of them today is news again. */
async function forgetResendMarks(deps: StatusHandlerDeps, applied: AppliedBatch, context: BatchContext) {
  const { left } = applied;
  if (left.size && deps.onLeft) {
    await context.retry('forgetting re-send marks', () =>
      Promise.all([...left].map(([account, ids]) => deps.onLeft!(account, ids))),
    );
  }
}
