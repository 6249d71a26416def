// A Kafka consumer whose sink is ClickHouse, effectively once:
// - every stored row (base tables and quarantine) carries its _topic/_partition/_offset and _item,
//   the position of its item within the message (a v2 listings message holds many listings; a
//   single-item message uses 0);
// - offsets are committed explicitly, per partition, only after the flush holding their rows
//   succeeded (kafkajs' commitOffsetsIfNecessary() without arguments never commits when
//   autoCommit is off, so we pass the offsets);
// - when a partition is (re)assigned, or after a failed batch, the first batch reads the set of
//   (offset, item) positions at or after its first offset that are already stored, and handlers
//   skip those items. A set, not a max: one flush may store a later offset (quarantine) while an
//   earlier one is not stored yet, and the rows of one message may span several ClickHouse
//   partitions (months), which one insert does not store atomically, so "max stored" could skip
//   unstored rows.
// Handlers still see stored items (isStored) so they can redo idempotent side effects (batch
// completion) that a crash between insert and commit may have cut off.
// Fencing: while a batch is stored the member heartbeats, and a heartbeat saying the
// group is rebalancing or lost this member, a long run of failed heartbeats, or a new assignment
// without the partition, revokes the batch (assignment-watch.ts): its rows not yet sent to
// ClickHouse are dropped (sink/batch-fence.ts, the writer), and it is not committed.
import type { ClickHouseClient } from '@clickhouse/client';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { z } from 'zod';
import { errorFields, type Logger } from '../common/logger.ts';
import { defineQuery } from '../common/warehouse/query.ts';
import type { TableRef } from '../common/warehouse/table.ts';
import { watchAssignment, type AssignmentWatch } from './assignment-watch.ts';
import { commitPacer } from './commit-pacer.ts';
import { retryWhileRunning } from './retry.ts';
import { BatchFence, BatchRevokedError, runInBatch } from './sink/batch-fence.ts';
import type { ClickHouseWriter } from './sink/clickhouse-writer.ts';

export interface Provenance {
  _topic: string;
  _partition: number;
  _offset: string;
  _item: number;
}

export interface BatchContext {
  /** Where item `item` (default 0) of message `m` came from; stored with its rows. */
  provenance(m: KafkaMessage, item?: number): Provenance;
  /** Whether rows of item `item` (default 0) of `m` are already stored (a replayed range). */
  isStored(m: KafkaMessage, item?: number): boolean;
  /** Retries an idempotent step on transient failure, heartbeating meanwhile; stops once revoked. */
  retry<T>(what: string, fn: () => Promise<T>): Promise<T>;
  /** Aborts when the batch's partition is revoked (writers follow the batch's fence: sink/batch-fence.ts). */
  signal: AbortSignal;
}

export interface BatchHandler {
  /**
   * Stores the items of `messages` that are not stored yet (isStored) and redoes idempotent side
   * effects for the others; resolves once everything is stored. Bad data goes to quarantine; only
   * infrastructure failures throw.
   */
  handle(messages: KafkaMessage[], context: BatchContext): Promise<void>;
}

export interface OffsetConsumerOptions {
  kafka: Kafka;
  clickhouse: ClickHouseClient;
  groupId: string;
  topic: string;
  /**
   * Tables whose rows carry provenance columns (their modules in common/warehouse/): an item is
   * stored if any of them has its position.
   */
  provenanceTables: readonly TableRef[];
  handler: BatchHandler;
  /** Drained when the consumer stops (clickhouse-writer.ts). */
  writers: Pick<ClickHouseWriter<object>, 'drain'>[];
  logger: Logger;
  partitionsConsumedConcurrently?: number;
  /** Bytes per partition per fetch (STREAM_FETCH_MAX_BYTES_PER_PARTITION); default 1 MiB. */
  maxBytesPerPartition?: number;
  /**
   * Fetch until this many bytes arrived or `fetchWaitMs` passed (default: 1 byte, i.e. at once).
   * A consumer that does little per message asks the broker less often this way.
   */
  fetchMinBytes?: number;
  /** How long the broker holds a fetch short of `fetchMinBytes` (default IDLE_FETCH_WAIT_MS). */
  fetchWaitMs?: number;
  /** Test hook (STREAM_CRASH_AFTER_INSERT): SIGKILL this process after its first handled batch, before the commit. */
  crashAfterInsert?: boolean;
  /** Group members to run in this process (default 1); see startOffsetConsumer. */
  members?: number;
  /**
   * Commit a partition at most this often (default 0: after every batch). Only for handlers whose
   * stored items the replay guard recognises and whose other items are cheap to see again: a crash
   * replays up to this long of the partition (commit-pacer.ts).
   */
  commitIntervalMs?: number;
  /** Group timing (tests shorten it); defaults: session 30 s, rebalance 60 s, heartbeat 3 s. */
  timing?: { sessionTimeoutMs: number; rebalanceTimeoutMs: number; heartbeatIntervalMs: number };
}

export interface RunningConsumer {
  assigned(): number[];
  lag(): Record<string, number>;
  stop(): Promise<void>;
}

/**
 * Runs `options.members` group members (default 1) in this process; they share the handler and
 * writers. Why more than one: a kafkajs consumer fetches again only once every partition of its
 * previous fetch is committed, so one member alternates between preparing rows (CPU) and waiting for
 * the insert (ClickHouse); two members overlap the two (bench:stream, stream alone, clean stack:
 * 19.6–21.1 k → 21.4–26.8 k listings/s with two).
 */
export async function startOffsetConsumer(options: OffsetConsumerOptions): Promise<RunningConsumer> {
  const members = await Promise.all(Array.from({ length: options.members ?? 1 }, () => startMember(options)));
  return {
    assigned: () => members.flatMap((m) => m.assigned()).sort((a, b) => a - b),
    lag: () => Object.assign({}, ...members.map((m) => m.lag())) as Record<string, number>,
    async stop() {
      // Paced commits first, while still a member; kafkajs' stop() then waits for the running
      // batches (which await their flush and commit), so what was handed to the writers is stored
      // and committed before we leave the group.
      await Promise.all(members.map((m) => m.pacer.flush()));
      await Promise.all(members.map((m) => m.consumer.stop()));
      for (const writer of options.writers) await writer.drain();
      await Promise.all(members.map((m) => m.consumer.disconnect()));
    },
  };
}

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

const DEFAULT_TIMING = { sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 60_000, heartbeatIntervalMs: 3_000 };

/**
 * How long the broker holds a fetch that finds no new message. A message arriving ends the wait at
 * once (the fetch's minimum is one byte), so this is not a latency: it is how often an idle member
 * asks again. At 100 ms the idle members of a worker and an image process cost Kafka and themselves
 * ~0.1 core (docs/performance.md, "Fixed costs"); it stays below the heartbeat interval, which
 * kafkajs sends between fetches.
 */
const IDLE_FETCH_WAIT_MS = 1_000;

async function startMember(options: OffsetConsumerOptions) {
  const { kafka, topic, logger } = options;
  const timing = options.timing ?? DEFAULT_TIMING;
  const consumer = kafka.consumer({
    groupId: options.groupId,
    sessionTimeout: timing.sessionTimeoutMs,
    rebalanceTimeout: timing.rebalanceTimeoutMs,
    heartbeatInterval: timing.heartbeatIntervalMs,
    maxBytesPerPartition: options.maxBytesPerPartition ?? 1024 * 1024,
    minBytes: options.fetchMinBytes ?? 1,
    maxWaitTimeInMs: options.fetchWaitMs ?? IDLE_FETCH_WAIT_MS,
    allowAutoTopicCreation: false,
  });
  // Per partition: "offset:item" positions at or after `from` that were already stored when checked.
  const guards = new Map<number, { from: bigint; stored: Set<string> }>();
  const lagByPartition: Record<string, number> = {};
  let assigned: number[] = [];
  /** Batches being stored, per partition: revoked when a new assignment leaves their partition out. */
  const running = new Map<number, AssignmentWatch>();
  const storedQuery = storedPositionsQuery(options.provenanceTables);
  const pacer = commitPacer({
    intervalMs: options.commitIntervalMs ?? 0,
    commitLater: (partition, offset) => consumer.commitOffsets([{ topic, partition, offset }]),
    logger,
  });

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    // Another worker may have stored more of a partition since we last held it: check again.
    guards.clear();
    assigned = event.payload.memberAssignment[topic] ?? [];
    pacer.retain(assigned);
    for (const [partition, watch] of running)
      if (!assigned.includes(partition))
        watch.revoke(new BatchRevokedError(`partition ${partition} is no longer assigned to this member`));
    for (const p of Object.keys(lagByPartition)) if (!assigned.includes(Number(p))) delete lagByPartition[p];
    logger.info('partitions assigned', { topic, partitions: assigned });
  });

  async function storedPositions(partition: number, from: bigint): Promise<Set<string>> {
    const { rows } = await storedQuery.run(options.clickhouse, { topic, partition, from });
    return new Set(rows.map((r) => r.o));
  }

  async function eachBatch(payload: EachBatchPayload) {
    const { batch, heartbeat, isRunning, isStale } = payload;
    if (!isRunning() || isStale() || batch.messages.length === 0) return;
    const { partition } = batch;
    const first = batch.messages[0]!.offset;
    lagByPartition[String(partition)] = Math.max(0, Number(batch.highWatermark) - Number(first));
    const watch = watchAssignment({
      heartbeat,
      intervalMs: timing.heartbeatIntervalMs,
      sessionTimeoutMs: timing.sessionTimeoutMs,
      logger,
      partition,
    });
    running.set(partition, watch);
    try {
      await storeBatch(payload, watch.signal);
    } finally {
      watch.stop();
      if (running.get(partition) === watch) running.delete(partition);
    }
  }

  /** Stores one batch and commits it, unless `signal` (its revocation) aborts first. */
  async function storeBatch(payload: EachBatchPayload, signal: AbortSignal) {
    const { batch, heartbeat, resolveOffset, commitOffsetsIfNecessary, isRunning } = payload;
    const { partition } = batch;
    const first = BigInt(batch.messages[0]!.offset);
    const last = batch.messages[batch.messages.length - 1]!.offset;
    const retry = <T>(what: string, fn: () => Promise<T>) =>
      retryWhileRunning(what, fn, { heartbeat, isRunning, logger, signal });

    let guard = guards.get(partition);
    if (!guard || first < guard.from) {
      guard = {
        from: first,
        stored: await retry('reading stored positions', () => storedPositions(partition, first)),
      };
      guards.set(partition, guard);
      if (guard.stored.size)
        logger.info('skipping stored items of a replayed range', { partition, count: guard.stored.size });
    }
    const stored = guard.stored;
    const context: BatchContext = {
      provenance: (m, item = 0) => ({ _topic: topic, _partition: partition, _offset: m.offset, _item: item }),
      isStored: (m, item = 0) => stored.size > 0 && stored.has(`${m.offset}:${item}`),
      retry,
      signal,
    };
    await runInBatch(new BatchFence(signal), () => options.handler.handle(batch.messages, context));
    // Revoked after some of it may have been stored (its writes completed: sink/batch-fence.ts), or
    // while the handler finished: no commit either way; the next owner's replay guard sees the rows.
    if (signal.aborted) throw signal.reason;
    if (options.crashAfterInsert) {
      logger.warn('STREAM_CRASH_AFTER_INSERT: killing the worker between insert and commit', { partition });
      process.kill(process.pid, 'SIGKILL');
    }
    // Positions up to this batch's last offset can no longer be replayed within this assignment.
    if (stored.size)
      for (const position of stored)
        if (BigInt(position.slice(0, position.indexOf(':'))) <= BigInt(last)) stored.delete(position);
    resolveOffset(last);
    await pacer.commit(partition, (BigInt(last) + 1n).toString(), (offset) =>
      commitOffsetsIfNecessary({ topics: [{ topic, partitions: [{ partition, offset }] }] }),
    );
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

  return { consumer, pacer, assigned: () => assigned, lag: () => ({ ...lagByPartition }) };
}
