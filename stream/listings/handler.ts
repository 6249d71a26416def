// Listing messages (v1 single, v2 per request: decode.ts) → enriched rows of `listings`, stored once
// per listing id:
// - items already stored at their position (a replayed range) are only marked in their batch again;
// - invalid messages or items go to quarantine + dead-letter topic;
// - ids already in `listing_lookup` (a listing published twice, at different offsets) and repeats
//   within the batch are skipped;
// - rows ClickHouse refuses are isolated by the writer and quarantined;
// - then every listing stored or skipped as already stored is marked in its batch (Redis), which
//   completes batches (contract, "Batches"). Replayed messages are marked again (idempotent).
import type { ClickHouseClient } from '@clickhouse/client';
import type { KafkaMessage } from 'kafkajs';
import type { ListingMessage } from '../../common/domain/messages.ts';
import type { FxTable } from '../enrich/fx.ts';
import type { BatchContext, BatchHandler, Provenance } from '../offset-consumer.ts';
import type { ClickHouseWriter, Row } from '../sink/clickhouse-writer.ts';
import { queryByIds } from '../sink/id-lookup.ts';
import type { Quarantine, QuarantineEntry } from '../sink/quarantine.ts';
import { decodeListings } from './decode.ts';
import { listingRow } from './row.ts';

export interface ListingsHandlerDeps {
  clickhouse: ClickHouseClient;
  writer: ClickHouseWriter;
  quarantine: Quarantine;
  fx: FxTable;
  /** batchStore(...).markStored */
  markStored(batchId: string, listingIds: string[]): Promise<unknown>;
}

/** Ids (validated UUIDs) among `ids` that `listing_lookup` already holds. Primary-key lookup. */
export async function storedListingIds(clickhouse: ClickHouseClient, ids: string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await queryByIds<{ id: string }>(
    clickhouse,
    ids,
    (inSet) => `SELECT DISTINCT toString(listing_id) AS id FROM listing_lookup WHERE listing_id IN ${inSet}`,
  );
  return new Set(rows.map((r) => r.id));
}

export function createListingsHandler(deps: ListingsHandlerDeps): BatchHandler {
  async function markBatches(listings: ListingMessage[], context: BatchContext) {
    const byBatch = new Map<string, string[]>();
    for (const l of listings) {
      const ids = byBatch.get(l.batch_id) ?? [];
      ids.push(l.listing_id);
      byBatch.set(l.batch_id, ids);
    }
    await context.retry('marking batches stored', () =>
      Promise.all([...byBatch].map(([batchId, ids]) => deps.markStored(batchId, ids))),
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
      const known = await context.retry('duplicate check', () =>
        storedListingIds(deps.clickhouse, [...new Set(valid.map((v) => v.value.listing_id))]),
      );
      const rows: Row[] = [];
      const source = new Map<Row, { provenance: Provenance; value: ListingMessage }>();
      for (const v of valid) {
        if (known.has(v.value.listing_id)) {
          done.push(v.value);
          continue;
        }
        known.add(v.value.listing_id); // the first occurrence in the batch wins
        const row = listingRow(v.value, v.provenance, storedAt, deps.fx);
        rows.push(row);
        source.set(row, v);
      }
      const [result] = await Promise.all([deps.writer.write(rows), deps.quarantine.rows(bad)]);
      const refused = new Set(result.rejected.map((r) => r.row));
      if (refused.size) {
        await deps.quarantine.rows(
          result.rejected.map(({ row, error }) => ({
            payload: JSON.stringify(source.get(row)!.value),
            error: `refused by ClickHouse: ${error}`,
            provenance: source.get(row)!.provenance,
          })),
        );
      }
      for (const row of rows) if (!refused.has(row)) done.push(source.get(row)!.value);
      await markBatches(done, context);
    },
  };
}
