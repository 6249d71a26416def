// A Kafka consumer whose sink is ClickHouse, effectively once:
// - every stored row (base tables and quarantine) carries its _topic/_partition/_offset and _item,
//   the position of its item within the message (a v2 listings message holds many listings; a
//   single-item message uses 0);
// - offsets are committed explicitly, per partition, only after the flush holding their rows
//   succeeded (kafkajs' commitOffsetsIfNecessary() without arguments never commits when
//   autoCommit is off, so we pass the offsets);
// - when a partition is (re)assigned, or after a failed batch, the first batch reads the set of
//   (offset, item) positions at or after its first offset that are already stored (replay-guard.ts),
//   and handlers skip those items.
// Handlers still see stored items (isStored) so they can redo idempotent side effects (batch
// completion) that a crash between insert and commit may have cut off.
// Fencing: while a batch is stored the member heartbeats, and a heartbeat saying the
// group is rebalancing or lost this member, a long run of failed heartbeats, or a new assignment
// without the partition, revokes the batch (assignment-watch.ts): its rows not yet sent to
// ClickHouse are dropped (sink/batch-fence.ts, the writer), and it is not committed.
// Pipelining (`pipeline.depth` > 1): kafkajs fetches again only once every batch of its previous
// fetch has returned, so a member that waits for each insert alternates between preparing rows and
// waiting for ClickHouse, and a listing that arrives meanwhile waits for both. A pipelined member
// returns a batch once it is handed to the handler (and its predecessors beyond the depth are
// settled), commits each batch when it and every earlier one of its partition are stored, and after
// a failure seeks back to the failed batch. Its batches in flight are marked in Redis
// (inflight-marks.ts): kafkajs no longer waits for them before the member rejoins the group, so a
// replay guard is read only once no batch of the partition is in flight, here or in another member.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { errorFields, type Logger } from '../common/logger.ts';
import type { TableRef } from '../common/warehouse/table.ts';
import { watchAssignment } from './assignment-watch.ts';
import { handOver, type Member } from './batch-run.ts';
import { commitPacer } from './commit-pacer.ts';
import type { InflightMarks } from './inflight-marks.ts';
import { DEFAULT_TIMING, memberConsumer, type MemberTiming } from './member-consumer.ts';
import { PartitionLanes } from './partition-lanes.ts';
import { replayGuard } from './replay-guard.ts';
import type { BatchFence } from './sink/batch-fence.ts';
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
  /** Aborts when the batch's partition is revoked. */
  signal: AbortSignal;
  /** The batch's fence: every write made for the batch passes it to its writer (sink/batch-fence.ts). */
  fence: BatchFence;
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
  /** How long the broker holds a fetch short of `fetchMinBytes` (default IDLE_FETCH_WAIT_MS, member-consumer.ts). */
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
  timing?: MemberTiming;
  /**
   * Batches of a partition handed to the handler and not yet settled, at most `depth` (without it:
   * 1, each batch stored and committed before the next is fetched). Only for handlers whose batch
   * does not read what the partition's previous batch stores (the status handler reads states).
   */
  pipeline?: { depth: number; marks: InflightMarks };
}

export interface RunningConsumer {
  assigned(): number[];
  lag(): Record<string, number>;
  stop(): Promise<void>;
}

/**
 * Runs `options.members` group members (default 1) in this process; they share the handler and
 * writers. Why more than one: a kafkajs consumer fetches again only once every batch of its previous
 * fetch has returned, so without pipelining one member alternates between preparing rows (CPU) and
 * waiting for the insert (ClickHouse); two members overlap the two (bench:stream, stream alone, clean
 * stack: 19.6–21.1 k → 21.4–26.8 k listings/s with two, before pipelining).
 */
export async function startOffsetConsumer(options: OffsetConsumerOptions): Promise<RunningConsumer> {
  const members = await Promise.all(Array.from({ length: options.members ?? 1 }, () => startMember(options)));
  return {
    assigned: () => members.flatMap((m) => m.assigned()).sort((a, b) => a - b),
    lag: () => Object.assign({}, ...members.map((m) => m.lag())) as Record<string, number>,
    async stop() {
      // While still a member: no new batch is handed over, the batches in flight are stored and
      // committed, then the paced commits go; kafkajs' stop() waits for the running batches, so
      // what was handed to the writers is stored and committed before we leave the group.
      await Promise.all(members.map((m) => m.settle()));
      await Promise.all(members.map((m) => m.pacer.flush()));
      await Promise.all(members.map((m) => m.consumer.stop()));
      for (const writer of options.writers) await writer.drain();
      await Promise.all(members.map((m) => m.consumer.disconnect()));
    },
  };
}

async function startMember(options: OffsetConsumerOptions) {
  const { kafka, topic, logger } = options;
  const timing = options.timing ?? DEFAULT_TIMING;
  const depth = options.pipeline?.depth ?? 1;
  const consumer = memberConsumer(kafka, logger, { ...options, timing });
  const guards = replayGuard(options.clickhouse, topic, options.provenanceTables);
  const lanes = new PartitionLanes();
  let stopping = false;
  const member = newMember(options, consumer, guards, lanes, timing);

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    // Another worker may have stored more of a partition since we last held it: check again.
    guards.forget();
    const assigned = event.payload.memberAssignment[topic] ?? [];
    lanes.reassigned(assigned);
    member.pacer.retain(assigned);
    logger.info('partitions assigned', { topic, partitions: assigned });
  });

  /** Hands the batch over (batch-run.ts) and returns once the partition's lane has room again. */
  async function eachBatch(payload: EachBatchPayload) {
    const { batch, heartbeat, isRunning, isStale, resolveOffset } = payload;
    if (stopping || !isRunning() || isStale() || batch.messages.length === 0) return;
    const { partition } = batch;
    const first = BigInt(batch.messages[0]!.offset);
    let chain = lanes.chainOf(partition);
    if (chain.failedAt !== undefined) {
      // Read before the seek back to a failed batch took effect: ask for it again.
      if (first !== chain.failedAt) return member.seekBack(partition, chain, chain.failedAt);
      chain = lanes.restartChain(partition);
    }
    lanes.setLag(partition, batch.highWatermark, first);
    const watch = watchAssignment({
      heartbeat,
      intervalMs: timing.heartbeatIntervalMs,
      sessionTimeoutMs: timing.sessionTimeoutMs,
      logger,
      partition,
    });
    const unwatch = lanes.watching(partition, watch);
    let done: Promise<boolean>;
    try {
      ({ done } = await handOver(member, payload, chain, watch, unwatch));
    } catch (error) {
      watch.stop();
      unwatch();
      throw error;
    }
    const lane = lanes.handedOver(partition, done);
    resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
    while (lane.size >= depth) await Promise.race(lane);
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
        // Not handed over, nothing resolved: kafkajs fetches the range again after a pause, and we re-check it.
        guards.forget(payload.batch.partition);
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
    pacer: member.pacer,
    assigned: () => lanes.assigned(),
    lag: () => lanes.lag(),
    /** Hands over no new batch; resolves once every batch in flight is stored and committed, or failed. */
    async settle() {
      stopping = true;
      consumer.pause([{ topic }]);
      await lanes.allSettled();
    },
  };
}

/** What the member lends each batch run (batch-run.ts). */
function newMember(
  options: OffsetConsumerOptions,
  consumer: Consumer,
  guards: ReturnType<typeof replayGuard>,
  lanes: PartitionLanes,
  timing: MemberTiming,
): Member {
  const { topic, logger } = options;
  return {
    topic,
    logger,
    consumer,
    guards,
    marks: options.pipeline?.marks,
    timing,
    handler: options.handler,
    lanes,
    crashAfterInsert: options.crashAfterInsert,
    pacer: commitPacer({
      intervalMs: options.commitIntervalMs ?? 0,
      commitLater: (partition, offset) => consumer.commitOffsets([{ topic, partition, offset }]),
      logger,
    }),
    seekBack(partition, chain, offset) {
      chain.failedAt = offset;
      guards.forget(partition);
      try {
        consumer.seek({ topic, partition, offset: offset.toString() });
      } catch (error) {
        // The consumer is stopping: the partition's next reader starts at the last commit.
        logger.warn('seeking back to a failed batch failed', { topic, partition, ...errorFields(error) });
      }
    },
  };
}
