// A Kafka consumer whose sink is ClickHouse, effectively once: every stored row carries its
// topic/partition/offset; when a partition is (re)assigned we read the highest stored offset and skip
// messages at or below it, so a range replayed after a crash or rebalance is never stored twice.
// Offsets are committed only after the flush that holds their rows succeeded.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { queryRows, sqlString } from '../common/clients/clickhouse.ts';
import { errorFields, type Logger } from '../common/logger.ts';
import type { ClickHouseWriter } from './sink/clickhouse-writer.ts';

export interface Provenance {
  _topic: string;
  _partition: number;
  _offset: string;
}

export interface BatchHandler {
  /** Turns messages (already past the high-water mark) into stored rows; must not throw for bad data. */
  handle(messages: KafkaMessage[], provenance: (m: KafkaMessage) => Provenance): Promise<void>;
}

export interface OffsetConsumerOptions {
  kafka: Kafka;
  clickhouse: ClickHouseClient;
  groupId: string;
  topic: string;
  /** Tables whose rows carry provenance columns; the high-water mark is the max over all of them. */
  provenanceTables: string[];
  handler: BatchHandler;
  writers: ClickHouseWriter[];
  logger: Logger;
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
    heartbeatInterval: 3_000,
    maxBytesPerPartition: 4 * 1024 * 1024,
    maxWaitTimeInMs: 100,
    allowAutoTopicCreation: false,
  });
  const highWater = new Map<number, bigint>();
  const lagByPartition: Record<string, number> = {};
  let assigned: number[] = [];

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    // Another worker may have stored more of a partition since we last held it: forget our marks.
    highWater.clear();
    assigned = event.payload.memberAssignment[topic] ?? [];
    logger.info('partitions assigned', { topic, partitions: assigned });
  });

  async function storedHighWater(partition: number): Promise<bigint> {
    const known = highWater.get(partition);
    if (known !== undefined) return known;
    const selects = options.provenanceTables.map(
      (table) => `SELECT max(_offset) AS o, count() AS c FROM ${table}
                  WHERE _topic = ${sqlString(topic)} AND _partition = ${partition}`,
    );
    const rows = await queryRows<{ o: string; c: string }>(options.clickhouse, selects.join(' UNION ALL '));
    const max = rows.reduce((acc, r) => (Number(r.c) > 0 && BigInt(r.o) > acc ? BigInt(r.o) : acc), -1n);
    highWater.set(partition, max);
    return max;
  }

  async function eachBatch({
    batch,
    heartbeat,
    resolveOffset,
    commitOffsetsIfNecessary,
    isRunning,
    isStale,
  }: EachBatchPayload) {
    if (!isRunning() || isStale() || batch.messages.length === 0) return;
    const mark = await retryTransient(() => storedHighWater(batch.partition), heartbeat, isRunning, logger);
    const fresh = batch.messages.filter((m) => BigInt(m.offset) > mark);
    const provenance = (m: KafkaMessage): Provenance => ({
      _topic: topic,
      _partition: batch.partition,
      _offset: m.offset,
    });
    if (fresh.length) await keepAlive(options.handler.handle(fresh, provenance), heartbeat);
    const last = batch.messages[batch.messages.length - 1]!.offset;
    highWater.set(batch.partition, BigInt(last) > mark ? BigInt(last) : mark);
    resolveOffset(last);
    lagByPartition[String(batch.partition)] = Math.max(0, Number(batch.highWatermark) - Number(last) - 1);
    await commitOffsetsIfNecessary();
  }

  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: 6,
    eachBatch: async (payload) => {
      try {
        await eachBatch(payload);
      } catch (error) {
        // Nothing committed: kafkajs re-fetches from the last commit after a short pause.
        logger.warn('batch failed; will be consumed again', {
          topic,
          partition: payload.batch.partition,
          ...errorFields(error),
        });
        highWater.delete(payload.batch.partition);
        throw error;
      }
    },
  });

  return {
    consumer,
    assigned: () => assigned,
    lag: () => ({ ...lagByPartition }),
    async stop() {
      // Stop fetching first, then let the writers store what the last batches handed them.
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

async function retryTransient<T>(
  fn: () => Promise<T>,
  heartbeat: () => Promise<void>,
  isRunning: () => boolean,
  logger: Logger,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isRunning()) throw error;
      const delay = Math.min(200 * 2 ** attempt, 5_000);
      logger.warn('reading stored offsets failed, retrying', { attempt, ...errorFields(error) });
      await heartbeat().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
