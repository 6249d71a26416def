// A Kafka consumer whose sink is ClickHouse, effectively once:
// - every stored row (base tables and quarantine) carries its _topic/_partition/_offset;
// - offsets are committed explicitly, per partition, only after the flush holding their rows
//   succeeded (kafkajs' commitOffsetsIfNecessary() without arguments never commits when
//   autoCommit is off, so we pass the offsets);
// - when a partition is (re)assigned, or after a failed batch, the first batch reads the set of
//   offsets at or after its first offset that are already stored, and those messages are skipped.
//   A set, not a max: one flush may store a later offset of a partition (quarantine) while an
//   earlier one (base table) is not stored yet, so "max stored offset" could skip unstored rows.
// Skipped messages are still handed to the handler as `replayed` so it can redo idempotent side
// effects (batch completion) that a crash between insert and commit may have cut off.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { queryRows, sqlNumber, sqlString } from '../common/clients/clickhouse.ts';
import { errorFields, type Logger } from '../common/logger.ts';
import { retryWhileRunning } from './retry.ts';
import type { ClickHouseWriter } from './sink/clickhouse-writer.ts';

export interface Provenance {
  _topic: string;
  _partition: number;
  _offset: string;
}

export interface BatchContext {
  provenance(m: KafkaMessage): Provenance;
  /** Retries an idempotent step on transient failure, heartbeating meanwhile. */
  retry<T>(what: string, fn: () => Promise<T>): Promise<T>;
}

export interface BatchHandler {
  /**
   * Stores `fresh` (not stored yet) and redoes side effects for `replayed` (already stored); resolves
   * once everything is stored. Bad data goes to quarantine; only infrastructure failures throw.
   */
  handle(fresh: KafkaMessage[], replayed: KafkaMessage[], context: BatchContext): Promise<void>;
}

export interface OffsetConsumerOptions {
  kafka: Kafka;
  clickhouse: ClickHouseClient;
  groupId: string;
  topic: string;
  /** Tables whose rows carry provenance columns: a message is stored if any of them has its offset. */
  provenanceTables: string[];
  handler: BatchHandler;
  writers: ClickHouseWriter[];
  logger: Logger;
  partitionsConsumedConcurrently?: number;
  /** Test hook (STREAM_CRASH_AFTER_INSERT): SIGKILL this process after the first stored batch, before its commit. */
  crashAfterInsert?: boolean;
}

export interface RunningConsumer {
  consumer: Consumer;
  assigned(): number[];
  lag(): Record<string, number>;
  stop(): Promise<void>;
}

export async function startOffsetConsumer(options: OffsetConsumerOptions): Promise<RunningConsumer> {
  const { kafka, topic, logger } = options;
  const consumer = kafka.consumer({
    groupId: options.groupId,
    sessionTimeout: 30_000,
    rebalanceTimeout: 60_000,
    heartbeatInterval: 3_000,
    maxBytesPerPartition: 4 * 1024 * 1024,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  // Per partition: offsets (as strings) at or after `from` that were already stored when checked.
  const guards = new Map<number, { from: bigint; stored: Set<string> }>();
  const lagByPartition: Record<string, number> = {};
  let assigned: number[] = [];

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    // Another worker may have stored more of a partition since we last held it: check again.
    guards.clear();
    assigned = event.payload.memberAssignment[topic] ?? [];
    for (const p of Object.keys(lagByPartition)) if (!assigned.includes(Number(p))) delete lagByPartition[p];
    logger.info('partitions assigned', { topic, partitions: assigned });
  });

  async function storedOffsets(partition: number, from: bigint): Promise<Set<string>> {
    const selects = options.provenanceTables.map(
      (table) => `SELECT toString(_offset) AS o FROM ${table}
                  WHERE _topic = ${sqlString(topic)} AND _partition = ${sqlNumber(partition)}
                    AND _offset >= ${from.toString()}`,
    );
    const rows = await queryRows<{ o: string }>(options.clickhouse, selects.join(' UNION ALL '));
    return new Set(rows.map((r) => r.o));
  }

  async function eachBatch(payload: EachBatchPayload) {
    const { batch, heartbeat, resolveOffset, commitOffsetsIfNecessary, isRunning, isStale } = payload;
    if (!isRunning() || isStale() || batch.messages.length === 0) return;
    const { partition } = batch;
    const first = BigInt(batch.messages[0]!.offset);
    const last = batch.messages[batch.messages.length - 1]!.offset;
    lagByPartition[String(partition)] = Math.max(0, Number(batch.highWatermark) - Number(first));
    const retry = <T>(what: string, fn: () => Promise<T>) =>
      retryWhileRunning(what, fn, { heartbeat, isRunning, logger });

    let guard = guards.get(partition);
    if (!guard || first < guard.from) {
      guard = {
        from: first,
        stored: await retry('reading stored offsets', () => storedOffsets(partition, first)),
      };
      guards.set(partition, guard);
      if (guard.stored.size)
        logger.info('skipping stored offsets of a replayed range', { partition, count: guard.stored.size });
    }
    const stored = guard.stored;
    const fresh = stored.size ? batch.messages.filter((m) => !stored.has(m.offset)) : batch.messages;
    const replayed = stored.size ? batch.messages.filter((m) => stored.has(m.offset)) : [];
    const context: BatchContext = {
      provenance: (m) => ({ _topic: topic, _partition: partition, _offset: m.offset }),
      retry,
    };
    await keepAlive(options.handler.handle(fresh, replayed, context), heartbeat);
    if (options.crashAfterInsert && fresh.length) {
      logger.warn('STREAM_CRASH_AFTER_INSERT: killing the worker between insert and commit', { partition });
      process.kill(process.pid, 'SIGKILL');
    }
    // Offsets below the next batch can no longer be replayed within this assignment.
    if (stored.size) for (const m of batch.messages) stored.delete(m.offset);
    resolveOffset(last);
    await commitOffsetsIfNecessary({
      topics: [{ topic, partitions: [{ partition, offset: (BigInt(last) + 1n).toString() }] }],
    });
    lagByPartition[String(partition)] = Math.max(0, Number(batch.highWatermark) - Number(last) - 1);
  }

  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: options.partitionsConsumedConcurrently ?? 6,
    eachBatch: async (payload) => {
      try {
        await eachBatch(payload);
      } catch (error) {
        // Nothing committed: kafkajs fetches the range again after a pause, and we re-check it.
        guards.delete(payload.batch.partition);
        logger.warn('batch failed; will be consumed again', {
          topic,
          partition: payload.batch.partition,
          ...errorFields(error),
        });
        throw error;
      }
    },
  });

  return {
    consumer,
    assigned: () => assigned,
    lag: () => ({ ...lagByPartition }),
    async stop() {
      // kafkajs' stop() waits for the running batches (which await their flush and commit), so
      // what was handed to the writers is stored and committed before we leave the group.
      await consumer.stop();
      for (const writer of options.writers) await writer.drain();
      await consumer.disconnect();
    },
  };
}

/** Awaits `work` while heartbeating, so a long flush (ClickHouse down) does not cost the partition. */
async function keepAlive<T>(work: Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => undefined), 3_000);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}
