// The replay guard of one group member (offset-consumer.ts; docs/stream.md, item 3): per partition,
// the "offset:item" positions at or after a batch's first offset that were already stored when
// read, so handlers skip exactly those items of a replayed range. A set, not a max: one flush may
// store a later offset (quarantine) while an earlier one is not stored yet, and the rows of one
// message may span several ClickHouse partitions (months), which one insert does not store
// atomically. Read again whenever the partition may hold rows this member did not store since it
// last read: after a (re)assignment, after a failed batch, or for a range before the last read.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { defineQuery } from '../common/warehouse/query.ts';
import type { TableRef } from '../common/warehouse/table.ts';

/** The "offset:item" positions of one partition at or after `from` stored in any of `tables`. */
function storedPositionsQuery(tables: readonly TableRef[]) {
  return defineQuery({
    name: 'stored_positions',
    params: z.object({ topic: z.string(), partition: z.number().int(), from: z.bigint() }),
    row: z.object({ o: z.string() }),
    // Table names from the table modules, never input; the values are query parameters.
    sql: tables
      .map(
        (table) => `SELECT concat(toString(_offset), ':', toString(_item)) AS o FROM ${table.name}
                  WHERE _topic = {topic:String} AND _partition = {partition:UInt32}
                    AND _offset >= {from:UInt64}`,
      )
      .join(' UNION ALL '),
  });
}

export interface StoredPositions {
  from: bigint;
  stored: Set<string>;
}

export function replayGuard(clickhouse: ClickHouseClient, topic: string, tables: readonly TableRef[]) {
  const query = storedPositionsQuery(tables);
  const guards = new Map<number, StoredPositions>();
  return {
    /** The positions read for `partition`, unless a batch starting at `first` must read them again. */
    current(partition: number, first: bigint): StoredPositions | undefined {
      const guard = guards.get(partition);
      return guard && first >= guard.from ? guard : undefined;
    },
    /** Reads the positions of `partition` at or after `from` (the caller waits for its batches in flight first). */
    async read(partition: number, from: bigint): Promise<StoredPositions> {
      const { rows } = await query.run(clickhouse, { topic, partition, from });
      const guard = { from, stored: new Set(rows.map((r) => r.o)) };
      guards.set(partition, guard);
      return guard;
    },
    /** Makes the next batch of `partition` (of every partition without one) read its positions again. */
    forget(partition?: number): void {
      if (partition === undefined) guards.clear();
      else guards.delete(partition);
    },
  };
}

/** Positions up to `last` can no longer be replayed within this assignment: frees them. */
export function pruneThrough(guard: StoredPositions, last: string): void {
  if (guard.stored.size)
    for (const position of guard.stored)
      if (BigInt(position.slice(0, position.indexOf(':'))) <= BigInt(last)) guard.stored.delete(position);
}
