// Listing messages (v1 single, v2 per request: decode.ts) → enriched rows of `listings`, stored once
// per listing id:
// - items already stored at their position (a replayed range) are only marked in their batch again;
// - invalid messages or items go to quarantine + dead-letter topic;
// - each id is claimed for its position in the listing owners (owners.ts): ids owned by another
//   position (a listing published twice, at different offsets, or twice in one batch) are skipped;
// - rows ClickHouse refuses are isolated by the writer, quarantined, and release their claim;
// - then every listing stored or skipped as already stored is marked in its batch (Redis), which
//   completes batches (contract, "Batches"). Replayed messages are marked again (idempotent).
import type { KafkaMessage } from 'kafkajs';
import type { ListingMessage } from '../../common/domain/messages.ts';
import type { FxTable } from '../enrich/fx.ts';
import type { BatchContext, BatchHandler, Provenance } from '../offset-consumer.ts';
import type { ListingRow } from '../../common/warehouse/listings.ts';
import type { ClickHouseWriter } from '../sink/clickhouse-writer.ts';
import type { Quarantine, QuarantineEntry } from '../sink/quarantine.ts';
import { decodeListings } from './decode.ts';
import { positionOf, type ListingOwners } from './owners.ts';
import { listingRow } from './row.ts';

export interface ListingsHandlerDeps {
  owners: ListingOwners;
  writer: ClickHouseWriter<ListingRow>;
  quarantine: Quarantine;
  fx: FxTable;
  /** batchStore(...).markStored */
  markStored(accountId: string, batchId: string, listingIds: string[]): Promise<unknown>;
  /**
   * Listings published again after they were stored (bulk create's duplicate window had passed):
   * a re-send for the listing lifecycle (docs/lifecycle.md, "Re-sends"). Best effort.
   */
  reportRepushed?(listings: ListingMessage[]): Promise<void>;
}

export function createListingsHandler(deps: ListingsHandlerDeps): BatchHandler {
  async function markBatches(listings: ListingMessage[], context: BatchContext) {
    // A batch is its account's (its keys are under the account's tag): grouped by both.
    const byBatch = new Map<string, { accountId: string; batchId: string; ids: string[] }>();
    for (const l of listings) {
      const key = `${l.account_id}\n${l.batch_id}`;
      const group = byBatch.get(key) ?? { accountId: l.account_id, batchId: l.batch_id, ids: [] };
      group.ids.push(l.listing_id);
      byBatch.set(key, group);
    }
    await context.retry('marking batches stored', () =>
      Promise.all([...byBatch.values()].map((g) => deps.markStored(g.accountId, g.batchId, g.ids))),
    );
  }

  return {
    async handle(messages: KafkaMessage[], context: BatchContext) {
      const storedAt = new Date().toISOString();
      const bad: QuarantineEntry[] = [];
      const valid: { provenance: Provenance; value: ListingMessage }[] = [];
      const done: ListingMessage[] = []; // stored now or before: marked in their batch
      for (const message of messages) {
        for (const decoded of decodeListings(message)) {
          const stored = context.isStored(message, decoded.item);
          if (!decoded.ok) {
            if (!stored) {
              const { payload, error } = decoded;
              bad.push({ payload, error, provenance: context.provenance(message, decoded.item) });
            }
          } else if (stored)
            done.push(decoded.value); // replayed: redo its batch mark only
          else valid.push({ provenance: context.provenance(message, decoded.item), value: decoded.value });
        }
      }
      const claims = valid.map((v) => ({
        listingId: v.value.listing_id,
        position: positionOf(v.provenance),
      }));
      const owners = await context.retry('claiming listing ids', () => deps.owners.claim(claims));
      const rows: ListingRow[] = [];
      const source = new Map<ListingRow, { provenance: Provenance; value: ListingMessage }>();
      const repushed: ListingMessage[] = [];
      valid.forEach((v, i) => {
        // Owned by another position: stored (or being stored) from there. The first in a batch wins.
        if (owners[i] !== claims[i]!.position) {
          done.push(v.value);
          repushed.push(v.value);
          return;
        }
        const row = listingRow(v.value, v.provenance, storedAt, deps.fx);
        rows.push(row);
        source.set(row, v);
      });
      const [result] = await Promise.all([
        deps.writer.write(rows, context.fence),
        deps.quarantine.rows(bad, context.fence),
      ]);
      const refused = new Set(result.rejected.map((r) => r.row));
      if (refused.size) {
        const released = result.rejected.map(({ row }) => source.get(row)!);
        await context.retry('releasing refused listing ids', () =>
          deps.owners.release(
            released.map((r) => ({ listingId: r.value.listing_id, position: positionOf(r.provenance) })),
          ),
        );
        await deps.quarantine.rows(
          result.rejected.map(({ row, error }) => ({
            payload: JSON.stringify(source.get(row)!.value),
            error: `refused by ClickHouse: ${error}`,
            provenance: source.get(row)!.provenance,
          })),
          context.fence,
        );
      }
      for (const row of rows) if (!refused.has(row)) done.push(source.get(row)!.value);
      await markBatches(done, context);
      if (repushed.length && deps.reportRepushed) await deps.reportRepushed(repushed);
    },
  };
}
