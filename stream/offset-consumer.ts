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
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { errorFields, type Logger } from '../common/logger.ts';
import { streamBatchStore, streamBatchWait } from '../common/metrics/registry.ts';
import type { TableRef } from '../common/warehouse/table.ts';
import { watchAssignment, type AssignmentWatch } from './assignment-watch.ts';
import { commitPacer } from './commit-pacer.ts';
import { DEFAULT_TIMING, memberConsumer, type MemberTiming } from './member-consumer.ts';
import { noneLive, type InflightMarks } from './inflight-marks.ts';
import { pruneThrough, replayGuard } from './replay-guard.ts';
import { retryWhileRunning } from './retry.ts';
import { BatchFence, BatchRevokedError, runInBatch } from './sink/batch-fence.ts';
import type { ClickHouseWriter } from './sink/clickhouse-writer.ts';
import { setTimeout as sleep } from 'node:timers/promises';

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

/**
 * How long a failed batch's partition waits before it is read again: a failure that repeats (a
 * handler's non-transient error) is then a retry every second, not a busy loop of replay checks.
 */
const FAILED_BATCH_PAUSE_MS = 1_000;

/**
 * One partition's order of commits: `tail` settles true once every batch handed over since the
 * chain began is stored and committed, false once one of them failed (the later ones then are not
 * committed: they are read again with it). `failedAt`: the failed batch's first offset, sought back
 * to; the chain starts again with the batch read from there.
 */
interface CommitChain {
  tail: Promise<boolean>;
  failedAt?: bigint;
}

async function startMember(options: OffsetConsumerOptions) {
  const { kafka, topic, logger } = options;
  const timing = options.timing ?? DEFAULT_TIMING;
  const depth = options.pipeline?.depth ?? 1;
  const marks = options.pipeline?.marks;
  const consumer = memberConsumer(kafka, logger, { ...options, timing });
  const guards = replayGuard(options.clickhouse, topic, options.provenanceTables);
  const lagByPartition: Record<string, number> = {};
  let assigned: number[] = [];
  /** Batches handed over and not settled, per partition: revoked when a new assignment leaves their partition out. */
  const running = new Map<number, Set<AssignmentWatch>>();
  /** Per partition, each batch handed over until it is committed or failed (settles, never rejects). */
  const inFlight = new Map<number, Set<Promise<boolean>>>();
  const chains = new Map<number, CommitChain>();
  let stopping = false;
  const pacer = commitPacer({
    intervalMs: options.commitIntervalMs ?? 0,
    commitLater: (partition, offset) => consumer.commitOffsets([{ topic, partition, offset }]),
    logger,
  });
  const setOf = <T>(map: Map<number, Set<T>>, partition: number): Set<T> => {
    let set = map.get(partition);
    if (!set) map.set(partition, (set = new Set()));
    return set;
  };

  consumer.on(consumer.events.GROUP_JOIN, (event) => {
    // Another worker may have stored more of a partition since we last held it: check again.
    guards.forget();
    // kafkajs reads every partition again from its committed offset: new commit chains.
    chains.clear();
    assigned = event.payload.memberAssignment[topic] ?? [];
    pacer.retain(assigned);
    for (const [partition, watches] of running)
      if (!assigned.includes(partition))
        for (const watch of watches)
          watch.revoke(new BatchRevokedError(`partition ${partition} is no longer assigned to this member`));
    for (const p of Object.keys(lagByPartition)) if (!assigned.includes(Number(p))) delete lagByPartition[p];
    logger.info('partitions assigned', { topic, partitions: assigned });
  });

  /** Waits until no batch of `partition` is in flight, in this member and (pipelined) in any other. */
  async function inFlightSettled(partition: number, signal: AbortSignal): Promise<void> {
    await Promise.all(inFlight.get(partition) ?? []);
    if (marks) await noneLive(marks, partition, signal, logger);
  }

  function chainOf(partition: number): CommitChain {
    let chain = chains.get(partition);
    if (!chain) chains.set(partition, (chain = { tail: Promise.resolve(true) }));
    return chain;
  }

  function seekBack(partition: number, chain: CommitChain, offset: bigint) {
    chain.failedAt = offset;
    guards.forget(partition);
    try {
      consumer.seek({ topic, partition, offset: offset.toString() });
    } catch (error) {
      // The consumer is stopping: the partition's next reader starts at the last commit.
      logger.warn('seeking back to a failed batch failed', { topic, partition, ...errorFields(error) });
    }
  }

  async function eachBatch(payload: EachBatchPayload) {
    const { batch, heartbeat, isRunning, isStale, resolveOffset } = payload;
    if (stopping || !isRunning() || isStale() || batch.messages.length === 0) return;
    const { partition } = batch;
    const first = BigInt(batch.messages[0]!.offset);
    let chain = chainOf(partition);
    if (chain.failedAt !== undefined) {
      // Read before the seek back to a failed batch took effect: ask for it again.
      if (first !== chain.failedAt) return seekBack(partition, chain, chain.failedAt);
      chains.set(partition, (chain = { tail: Promise.resolve(true) }));
    }
    lagByPartition[String(partition)] = Math.max(0, Number(batch.highWatermark) - Number(first));
    const watch = watchAssignment({
      heartbeat,
      intervalMs: timing.heartbeatIntervalMs,
      sessionTimeoutMs: timing.sessionTimeoutMs,
      logger,
      partition,
    });
    const watches = setOf(running, partition);
    watches.add(watch);
    let done: Promise<boolean>;
    try {
      ({ done } = await handOver(payload, chain, watch));
    } catch (error) {
      watch.stop();
      watches.delete(watch);
      throw error;
    }
    const lane = setOf(inFlight, partition);
    lane.add(done);
    void done.then(() => lane.delete(done));
    resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
    while (lane.size >= depth) await Promise.race(lane);
  }

  /**
   * Hands one batch to the handler. `done` settles once it is stored and committed (true), or once
   * it failed, was revoked or follows a failed batch (false: it is read again).
   */
  async function handOver(
    payload: EachBatchPayload,
    chain: CommitChain,
    watch: AssignmentWatch,
  ): Promise<{ done: Promise<boolean> }> {
    const { batch, heartbeat, isRunning } = payload;
    const { partition } = batch;
    const { signal } = watch;
    const first = BigInt(batch.messages[0]!.offset);
    const last = batch.messages[batch.messages.length - 1]!.offset;
    const retry = <T>(what: string, fn: () => Promise<T>) =>
      retryWhileRunning(what, fn, { heartbeat, isRunning, logger, signal });

    let guard = guards.current(partition, first);
    if (!guard) {
      await retry('waiting for batches in flight', () => inFlightSettled(partition, signal));
      guard = await retry('reading stored positions', () => guards.read(partition, first));
      if (guard.stored.size)
        logger.info('skipping stored items of a replayed range', { partition, count: guard.stored.size });
    }
    const { stored } = guard;
    const context: BatchContext = {
      provenance: (m, item = 0) => ({ _topic: topic, _partition: partition, _offset: m.offset, _item: item }),
      isStored: (m, item = 0) => stored.size > 0 && stored.has(`${m.offset}:${item}`),
      retry,
      signal,
    };
    const markId = randomUUID();
    const ttlMs = timing.sessionTimeoutMs;
    if (marks) await retry('marking the batch in flight', () => marks.mark(partition, markId, ttlMs));
    // A failed renewal is tried again at the next interval: the mark lasts three of them.
    const renew = () => marks!.mark(partition, markId, ttlMs).catch(() => undefined); // see above
    const renewal = marks && setInterval(() => void renew(), ttlMs / 3);
    const handedAt = Date.now();
    streamBatchWait.observe({ topic }, Math.max(0, handedAt - Number(batch.messages[0]!.timestamp)) / 1000);
    const handled = runInBatch(new BatchFence(signal), () => options.handler.handle(batch.messages, context));
    const settled = (committed: boolean) =>
      streamBatchStore.observe(
        { topic, outcome: committed ? 'committed' : 'read_again' },
        (Date.now() - handedAt) / 1000,
      );
    const previous = chain.tail;
    const done = (async () => {
      let failure: unknown;
      try {
        await handled;
        // Revoked after some of it may have been stored (its writes completed: sink/batch-fence.ts),
        // or while the handler finished: no commit either way; the next reader's replay guard sees the rows.
        if (signal.aborted) throw signal.reason;
      } catch (error) {
        failure = error ?? new Error('batch failed');
      } finally {
        clearInterval(renewal);
        watch.stop();
        running.get(partition)?.delete(watch);
        // Left behind (Redis away), the mark expires after a session timeout.
        if (marks) await marks.clear(partition, markId).catch(() => undefined); // expires by itself
      }
      if (!(await previous)) return false; // read again from the earlier failed batch
      if (failure !== undefined) {
        logger.warn('batch failed; will be consumed again', { topic, partition, ...errorFields(failure) });
        await sleep(FAILED_BATCH_PAUSE_MS);
        if (chains.get(partition) === chain && assigned.includes(partition))
          seekBack(partition, chain, first);
        return false;
      }
      if (options.crashAfterInsert) {
        logger.warn('STREAM_CRASH_AFTER_INSERT: killing the worker between insert and commit', { partition });
        process.kill(process.pid, 'SIGKILL');
      }
      pruneThrough(guard, last);
      try {
        await pacer.commit(partition, (BigInt(last) + 1n).toString(), (offset) =>
          consumer.commitOffsets([{ topic, partition, offset }]),
        );
      } catch (error) {
        // A rebalance or a coordinator failover: the partition's next reader starts at the last commit.
        logger.warn('commit failed; its messages will be read again', {
          topic,
          partition,
          ...errorFields(error),
        });
      }
      lagByPartition[String(partition)] = Math.max(0, Number(batch.highWatermark) - Number(last) - 1);
      return true;
    })().then((committed) => {
      settled(committed);
      return committed;
    });
    chain.tail = done;
    return { done };
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
    pacer,
    assigned: () => assigned,
    lag: () => ({ ...lagByPartition }),
    /** Hands over no new batch; resolves once every batch in flight is stored and committed, or failed. */
    async settle() {
      stopping = true;
      consumer.pause([{ topic }]);
      for (let lanes = [...inFlight.values()]; lanes.some((l) => l.size); lanes = [...inFlight.values()])
        await Promise.all(lanes.flatMap((lane) => [...lane]));
    },
  };
}
