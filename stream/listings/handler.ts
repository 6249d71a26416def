// Listing messages → enriched rows of `listings`, stored once per listing id:
// - invalid messages go to quarantine + dead-letter topic;
// - ids already in `listing_lookup` (a listing published twice, at different offsets) and repeats
//   within the batch are skipped;
// - rows ClickHouse refuses are isolated by the writer and quarantined;
// - then every listing stored or skipped as already stored is marked in its batch (Redis), which
//   completes batches (contract, "Batches"). Replayed messages are marked again (idempotent).
import type { ClickHouseClient } from '@clickhouse/client';
import type { KafkaMessage } from 'kafkajs';
import { listingMessageSchema, type ListingMessage } from '../../common/domain/messages.ts';
import type { FxTable } from '../enrich/fx.ts';
import type { BatchContext, BatchHandler } from '../offset-consumer.ts';
import { parseMessage } from '../parse.ts';
import type { ClickHouseWriter, Row } from '../sink/clickhouse-writer.ts';
import { queryByIds } from '../sink/id-lookup.ts';
import type { Quarantine, QuarantineEntry } from '../sink/quarantine.ts';
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
    (list) => `SELECT DISTINCT toString(listing_id) AS id FROM listing_lookup WHERE listing_id IN (${list})`,
  );
  return new Set(rows.map((r) => r.id));
}

export function createListingsHandler(deps: ListingsHandlerDeps): BatchHandler {
  async function markBatches(messages: ListingMessage[], context: BatchContext) {
    const byBatch = new Map<string, string[]>();
    for (const m of messages) {
      const ids = byBatch.get(m.batch_id) ?? [];
      ids.push(m.listing_id);
      byBatch.set(m.batch_id, ids);
    }
    await context.retry('marking batches stored', () =>
      Promise.all([...byBatch].map(([batchId, ids]) => deps.markStored(batchId, ids))),
    );
  }

  return {
    async handle(fresh: KafkaMessage[], replayed: KafkaMessage[], context: BatchContext) {
      const storedAt = new Date().toISOString();
      const bad: QuarantineEntry[] = [];
      const valid: { message: KafkaMessage; value: ListingMessage }[] = [];
      for (const message of fresh) {
        const parsed = parseMessage(listingMessageSchema, message);
        if (parsed.ok) valid.push({ message, value: parsed.value });
        else bad.push({ message, error: parsed.error, provenance: context.provenance(message) });
      }
      const known = await context.retry('duplicate check', () =>
        storedListingIds(deps.clickhouse, [...new Set(valid.map((v) => v.value.listing_id))]),
      );
      const rows: Row[] = [];
      const source = new Map<Row, { message: KafkaMessage; value: ListingMessage }>();
      const done: ListingMessage[] = []; // stored now or before: marked in their batch
      for (const v of valid) {
        if (known.has(v.value.listing_id)) {
          done.push(v.value);
          continue;
        }
        known.add(v.value.listing_id); // the first occurrence in the batch wins
        const row = listingRow(v.value, context.provenance(v.message), storedAt, deps.fx);
        rows.push(row);
        source.set(row, v);
      }
      const [result] = await Promise.all([deps.writer.write(rows), deps.quarantine.rows(bad)]);
      const refused = new Set(result.rejected.map((r) => r.row));
      if (refused.size) {
        await deps.quarantine.rows(
          result.rejected.map(({ row, error }) => ({
            message: source.get(row)!.message,
            error: `refused by ClickHouse: ${error}`,
            provenance: context.provenance(source.get(row)!.message),
          })),
        );
      }
      for (const row of rows) if (!refused.has(row)) done.push(source.get(row)!.value);
      for (const message of replayed) {
        const parsed = parseMessage(listingMessageSchema, message);
        if (parsed.ok) done.push(parsed.value);
      }
      await markBatches(done, context);
    },
  };
}
