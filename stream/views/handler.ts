// View events → rows of `view_events`, enriched with the viewed listing's cell, city, neighbourhood,
// type and owner (listing_account_id, for market share). A view of a listing the stream does not know (yet) is stored with h3_index 0, city '' and
// property_type 'unknown' so it is never lost. Duplicates by event_id within a batch are dropped; the
// ingest API dedupes client event_ids in Redis, and provenance skips replayed offsets.
import type { KafkaMessage } from 'kafkajs';
import { viewMessageSchema, type ViewMessage } from '../../common/domain/messages.ts';
import type { BatchContext, BatchHandler } from '../offset-consumer.ts';
import { parseMessage } from '../parse.ts';
import type { ViewEventRow } from '../../common/warehouse/view-events.ts';
import type { ClickHouseWriter } from '../sink/clickhouse-writer.ts';
import type { Quarantine, QuarantineEntry } from '../sink/quarantine.ts';
import type { ListingCache } from './listing-cache.ts';

export function createViewsHandler(deps: {
  writer: ClickHouseWriter<ViewEventRow>;
  quarantine: Quarantine;
  listings: ListingCache;
}): BatchHandler {
  return {
    async handle(messages: KafkaMessage[], context: BatchContext) {
      const bad: QuarantineEntry[] = [];
      const valid: { message: KafkaMessage; value: ViewMessage }[] = [];
      const seen = new Set<string>();
      for (const message of messages) {
        if (context.isStored(message)) continue; // a replayed range: stored before
        const parsed = parseMessage(viewMessageSchema, message);
        if (!parsed.ok)
          bad.push({ payload: message.value, error: parsed.error, provenance: context.provenance(message) });
        else if (!seen.has(parsed.value.event_id)) {
          seen.add(parsed.value.event_id);
          valid.push({ message, value: parsed.value });
        }
      }
      const places = await context.retry('listing lookup for views', () =>
        deps.listings.lookup(valid.map((v) => v.value.listing_id)),
      );
      const source = new Map<ViewEventRow, KafkaMessage>();
      const rows = valid.map(({ message, value }) => {
        const place = places.get(value.listing_id);
        const row: ViewEventRow = {
          event_id: value.event_id,
          listing_id: value.listing_id,
          account_id: value.account_id,
          is_test: value.is_test ? 1 : 0,
          viewed_at: value.viewed_at,
          received_at: value.received_at,
          h3_index: place?.h3_index ?? '0',
          city: place?.city ?? '',
          neighbourhood: place?.neighbourhood ?? '',
          property_type: place?.property_type ?? 'unknown',
          listing_account_id: place?.account_id ?? '',
          ...context.provenance(message),
        };
        source.set(row, message);
        return row;
      });
      const [result] = await Promise.all([
        deps.writer.write(rows, context.fence),
        deps.quarantine.rows(bad, context.fence),
      ]);
      if (result.rejected.length) {
        await deps.quarantine.rows(
          result.rejected.map(({ row, error }) => ({
            payload: source.get(row)!.value,
            error: `refused by ClickHouse: ${error}`,
            provenance: context.provenance(source.get(row)!),
          })),
          context.fence,
        );
      }
    },
  };
}
