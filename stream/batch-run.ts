// One batch of a partition, from hand-over to commit, in named steps (offset-consumer.ts runs them):
// 1. skip stored  — the positions of the range already stored (replay guard), read once no batch
//                   of the partition is in flight here or, pipelined, in another member;
// 2. mark         — pipelined members mark the batch in flight in Redis while it runs;
// 3. handle       — the topic's handler stores the batch's items behind the batch's fence;
// 4. commit       — once it and every earlier batch of its partition are stored; a failure seeks
//                   back to it instead, and the batches after it are read again with it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { errorFields, type Logger } from '../common/logger.ts';
import { streamBatchStore, streamBatchWait } from '../common/metrics/registry.ts';
import type { AssignmentWatch } from './assignment-watch.ts';
import type { CommitPacer } from './commit-pacer.ts';
import { noneLive, type InflightMarks } from './inflight-marks.ts';
import type { MemberTiming } from './member-consumer.ts';
import type { BatchContext, BatchHandler } from './offset-consumer.ts';
import type { CommitChain, PartitionLanes } from './partition-lanes.ts';
import { pruneThrough, type replayGuard, type StoredPositions } from './replay-guard.ts';
import { retryWhileRunning } from './retry.ts';
import { BatchFence } from './sink/batch-fence.ts';

/**
 * How long a failed batch's partition waits before it is read again: a failure that repeats (a
 * handler's non-transient error) is then a retry every second, not a busy loop of replay checks.
 */
const FAILED_BATCH_PAUSE_MS = 1_000;

/** What a member lends each of its batch runs. */
export interface Member {
  topic: string;
  logger: Logger;
  consumer: Consumer;
  guards: ReturnType<typeof replayGuard>;
  marks?: InflightMarks;
  timing: MemberTiming;
  handler: BatchHandler;
  pacer: CommitPacer;
  lanes: PartitionLanes;
  crashAfterInsert?: boolean;
  /** Reads the partition again from `offset` (a failed batch). */
  seekBack(partition: number, chain: CommitChain, offset: bigint): void;
}

type Retry = BatchContext['retry'];

/**
 * Hands one batch to the handler. `done` settles once it is stored and committed (true), or once it
 * failed, was revoked or follows a failed batch (false: it is read again).
 */
export async function handOver(
  member: Member,
  payload: EachBatchPayload,
  chain: CommitChain,
  watch: AssignmentWatch,
  /** Forgets the watch (the batch no longer runs). */
  unwatch: () => void,
): Promise<{ done: Promise<boolean> }> {
  const { batch, heartbeat, isRunning } = payload;
  const { partition } = batch;
  const { signal } = watch;
  const first = BigInt(batch.messages[0]!.offset);
  const retry: Retry = (what, fn) =>
    retryWhileRunning(what, fn, { heartbeat, isRunning, logger: member.logger, signal });

  const guard = await skipStored(member, partition, first, retry, signal);
  const unmark = await markInFlight(member, partition, retry);
  const handedAt = Date.now();
  streamBatchWait.observe(
    { topic: member.topic },
    Math.max(0, handedAt - Number(batch.messages[0]!.timestamp)) / 1000,
  );
  const handled = handle(member, payload, guard, retry, new BatchFence(signal));
  const previous = chain.tail;
  const done = (async () => {
    const failure = await outcomeOf(handled, signal, async () => {
      watch.stop();
      unwatch();
      await unmark();
    });
    if (!(await previous)) return false; // read again from the earlier failed batch
    if (failure !== undefined) return readAgain(member, partition, chain, first, failure);
    return commit(member, payload, guard);
  })().then((committed) => {
    streamBatchStore.observe(
      { topic: member.topic, outcome: committed ? 'committed' : 'read_again' },
      (Date.now() - handedAt) / 1000,
    );
    return committed;
  });
  chain.tail = done;
  return { done };
}

/** Step 1: the positions at or after `first` already stored, read when none is known for it. */
async function skipStored(
  member: Member,
  partition: number,
  first: bigint,
  retry: Retry,
  signal: AbortSignal,
): Promise<StoredPositions> {
  const known = member.guards.current(partition, first);
  if (known) return known;
  await retry('waiting for batches in flight', async () => {
    await member.lanes.settled(partition);
    if (member.marks) await noneLive(member.marks, partition, signal, member.logger);
  });
  const guard = await retry('reading stored positions', () => member.guards.read(partition, first));
  if (guard.stored.size)
    member.logger.info('skipping stored items of a replayed range', { partition, count: guard.stored.size });
  return guard;
}

/** Step 2: the batch's in-flight mark, renewed while it runs; returns its removal. */
async function markInFlight(member: Member, partition: number, retry: Retry): Promise<() => Promise<void>> {
  const { marks } = member;
  if (!marks) return async () => undefined;
  const markId = randomUUID();
  const ttlMs = member.timing.sessionTimeoutMs;
  await retry('marking the batch in flight', () => marks.mark(partition, markId, ttlMs));
  // A failed renewal is tried again at the next interval: the mark lasts three of them.
  const failed = (what: string) => (error: unknown) =>
    member.logger.warn(what, { topic: member.topic, partition, ...errorFields(error) });
  const renewal = setInterval(
    () => void marks.mark(partition, markId, ttlMs).catch(failed('renewing an in-flight mark failed')),
    ttlMs / 3,
  );
  return async () => {
    clearInterval(renewal);
    // Left behind (Redis away), the mark expires after a session timeout.
    await marks.clear(partition, markId).catch(failed('clearing an in-flight mark failed; it expires'));
  };
}

/** Step 3: the handler, with the batch's context; its writes carry the batch's fence. */
function handle(
  member: Member,
  { batch }: EachBatchPayload,
  { stored }: StoredPositions,
  retry: Retry,
  fence: BatchFence,
): Promise<void> {
  const { topic } = member;
  const { partition } = batch;
  const context: BatchContext = {
    provenance: (m, item = 0) => ({ _topic: topic, _partition: partition, _offset: m.offset, _item: item }),
    isStored: (m, item = 0) => stored.size > 0 && stored.has(`${m.offset}:${item}`),
    retry,
    signal: fence.signal,
    fence,
  };
  return member.handler.handle(batch.messages, context);
}

/** The handler's failure, or the revocation that came while it ran; undefined when it stored all. */
async function outcomeOf(handled: Promise<void>, signal: AbortSignal, cleanUp: () => Promise<void>) {
  try {
    await handled;
    // Revoked after some of it may have been stored (its writes completed: sink/batch-fence.ts), or
    // while the handler finished: no commit either way; the next reader's replay guard sees the rows.
    if (signal.aborted) throw signal.reason;
    return undefined;
  } catch (error) {
    return error ?? new Error('batch failed');
  } finally {
    await cleanUp();
  }
}

/** A failed batch: its partition is read again from it, after a pause. */
async function readAgain(
  member: Member,
  partition: number,
  chain: CommitChain,
  first: bigint,
  failure: unknown,
) {
  member.logger.warn('batch failed; will be consumed again', {
    topic: member.topic,
    partition,
    ...errorFields(failure),
  });
  await sleep(FAILED_BATCH_PAUSE_MS);
  if (member.lanes.isCurrent(partition, chain) && member.lanes.isAssigned(partition))
    member.seekBack(partition, chain, first);
  return false;
}

/** Step 4: the batch and every earlier one of its partition are stored: commit past its last offset. */
async function commit(member: Member, { batch }: EachBatchPayload, guard: StoredPositions): Promise<true> {
  const { topic, logger } = member;
  const { partition } = batch;
  const last = batch.messages[batch.messages.length - 1]!.offset;
  if (member.crashAfterInsert) {
    logger.warn('STREAM_CRASH_AFTER_INSERT: killing the worker between insert and commit', { partition });
    process.kill(process.pid, 'SIGKILL');
  }
  pruneThrough(guard, last);
  try {
    await member.pacer.commit(partition, (BigInt(last) + 1n).toString(), (offset) =>
      member.consumer.commitOffsets([{ topic, partition, offset }]),
    );
  } catch (error) {
    // A rebalance or a coordinator failover: the partition's next reader starts at the last commit.
    logger.warn('commit failed; its messages will be read again', {
      topic,
      partition,
      ...errorFields(error),
    });
  }
  member.lanes.setLag(partition, batch.highWatermark, BigInt(last) + 1n);
  return true;
}
