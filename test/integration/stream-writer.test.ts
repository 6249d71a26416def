// The stream's batched ClickHouse writer against the real server: a partial batch goes out after the
// quiet gap (not held for the maximum delay), and rows ClickHouse refuses are isolated by bisection
// while every other row of the insert is stored. Rows are told apart by a random `_topic`.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { createClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { quarantineTable, type QuarantineRow } from '../../common/warehouse/quarantine.ts';
import { testClickHouse } from '../support/api.ts';
import { rows } from '../support/stream.ts';

const row = (topic: string, offset: number | string): QuarantineRow => ({
  quarantined_at: new Date().toISOString(),
  source: 'listings',
  error: 'writer test',
  payload: '{}',
  _topic: topic,
  _partition: 0,
  _offset: String(offset),
  _item: 0,
});

const writer = (options: { maxDelayMs: number; quietMs?: number }) =>
  createClickHouseWriter(testClickHouse(), {
    table: quarantineTable,
    maxRows: 10_000,
    logger: createLogger('error'),
    ...options,
  });

const storedOffsets = async (topic: string) =>
  (
    await rows<{ o: string }>(
      'SELECT toString(_offset) AS o FROM quarantine WHERE _topic = {topic:String} ORDER BY _offset',
      { topic },
    )
  ).map((r) => Number(r.o));

describe('stream: batched ClickHouse writer', () => {
  it('happy: a partial batch is flushed after the quiet gap instead of waiting for the maximum delay', async () => {
    const topic = `test.writer.${randomUUID().slice(0, 8)}`;
    // Were the quiet gap ignored, the write would outlast the test's timeout.
    const quiet = writer({ maxDelayMs: 600_000, quietMs: 20 });
    const result = await quiet.write([row(topic, 1), row(topic, 2)], null);
    expect(result.rejected).toEqual([]);
    expect(await storedOffsets(topic)).toEqual([1, 2]);
    await quiet.drain();
  }, 20_000);

  it('error: rows ClickHouse refuses are isolated and returned; every other row is stored', async () => {
    const topic = `test.writer.${randomUUID().slice(0, 8)}`;
    const isolating = writer({ maxDelayMs: 50 });
    const bad = row(topic, 'not a number'); // _offset is UInt64: the insert is refused
    const batch = [row(topic, 1), row(topic, 2), bad, row(topic, 4), row(topic, 5)];
    const result = await isolating.write(batch, null);
    expect(result.rejected.map((r) => r.row)).toEqual([bad]);
    expect(result.rejected[0]!.error).toMatch(/Code: \d+/);
    expect(await storedOffsets(topic)).toEqual([1, 2, 4, 5]);
    await isolating.drain();
  }, 30_000);
});
