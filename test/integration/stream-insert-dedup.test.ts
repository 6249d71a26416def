// Server-side insert deduplication: the writer sends an insert_deduplication_token derived from
// the Kafka positions of its rows, so sending the same rows again (a retry whose first attempt was
// committed without us hearing so) stores them once, in the base table and in the aggregates its
// materialized views feed. Other clients do not deduplicate: equal blocks are both stored.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { viewEventsTable, type ViewEventRow } from '../../common/warehouse/view-events.ts';
import { createClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { testClickHouse } from '../support/api.ts';
import { rows } from '../support/stream.ts';

// A cell id no real listing has (res-8 cells are far below 2^62), so the aggregate row is ours.
const randomCell = () => String(2n ** 62n + BigInt(Math.floor(Math.random() * 2 ** 40)));

function viewRows(topic: string, cell: string, count: number): ViewEventRow[] {
  const viewedAt = new Date().toISOString();
  return Array.from({ length: count }, (_, i) => ({
    event_id: `dedup-${topic}-${i}`,
    listing_id: randomUUID(),
    account_id: 'acct_dedup_test',
    is_test: 1,
    viewed_at: viewedAt,
    received_at: viewedAt,
    h3_index: cell,
    city: 'dar_es_salaam',
    neighbourhood: 'Masaki',
    property_type: 'apartment',
    listing_account_id: '',
    _topic: topic,
    _partition: 0,
    _offset: String(100 + i),
    _item: 0,
  }));
}

async function counts(topic: string, cell: string) {
  const [base] = await rows<{ n: string }>(
    'SELECT count() AS n FROM view_events WHERE _topic = {topic:String}',
    {
      topic,
    },
  );
  const [aggregate] = await rows<{ views: string }>(
    'SELECT sum(views) AS views FROM cell_quarter_stats WHERE h3_index = {cell:UInt64}',
    { cell },
  );
  return { base: Number(base!.n), views: Number(aggregate!.views) };
}

describe('stream: insert deduplication by Kafka position', () => {
  it('happy: the same rows written twice are stored once, in the table and in its aggregates', async () => {
    const topic = `test.dedup.${randomUUID().slice(0, 8)}`;
    const cell = randomCell();
    const writer = createClickHouseWriter(testClickHouse(), {
      table: viewEventsTable,
      maxRows: 10_000,
      maxDelayMs: 20,
      logger: createLogger('error'),
    });
    const batch = viewRows(topic, cell, 5);
    await writer.write(batch, null);
    await writer.write(
      batch.map((row) => ({ ...row })),
      null,
    ); // equal rows, new objects: a resend
    expect(await counts(topic, cell)).toEqual({ base: 5, views: 5 });
    // Different positions are different inserts, even with equal content otherwise.
    await writer.write(
      batch.map((row) => ({ ...row, _offset: String(Number(row._offset) + 1_000) })),
      null,
    );
    expect(await counts(topic, cell)).toEqual({ base: 10, views: 10 });
    await writer.drain();
  });

  it('happy: other clients are not deduplicated (equal blocks loaded on purpose are both stored)', async () => {
    const topic = `test.dedup.${randomUUID().slice(0, 8)}`;
    const cell = randomCell();
    const batch = viewRows(topic, cell, 3);
    for (let i = 0; i < 2; i++)
      await testClickHouse().insert({
        table: viewEventsTable.name,
        values: batch,
        format: 'JSONEachRow',
        columns: [...viewEventsTable.columns] as never,
      });
    expect(await counts(topic, cell)).toEqual({ base: 6, views: 6 });
  });
});
