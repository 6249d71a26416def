// Paces one group member's offset commits: a partition is committed at most once per interval, the
// newest offset of the batches in between going with the next commit or, when no batch comes, with
// a timer. Why: each commit is a request to the group coordinator and a record in
// __consumer_offsets; a consumer that keeps up with a busy topic handles a batch of one or two
// messages per fetch, so committing each one cost the broker more than the messages themselves
// (docs/decisions/0017-image-process-and-idle-consumers.md). A commit left pending when the process dies or the
// partition moves is not lost data: the partition's next reader starts at the last commit and
// sees those messages again, which is why only consumers that recognise what they already stored
// (offset-consumer.ts, the replay guard) may pace their commits.
import { inOrder } from '../common/in-order.ts';
import { errorFields, type Logger } from '../common/logger.ts';

export interface CommitPacer {
  /** Commits `offset` (the next to read) of `partition` now with `commitNow`, or within the interval. */
  commit(partition: number, offset: string, commitNow: (offset: string) => Promise<unknown>): Promise<void>;
  /** Forgets what is pending for partitions not in `assigned` (their next owner reads it again). */
  retain(assigned: readonly number[]): void;
  /** Commits what is pending and, from then on, every batch at once: call before leaving the group. */
  flush(): Promise<void>;
}

export interface CommitPacerOptions {
  /** 0 commits every batch at once. */
  intervalMs: number;
  /** Commits a pending offset outside a batch (kafkajs' consumer.commitOffsets). */
  commitLater: (partition: number, offset: string) => Promise<unknown>;
  logger: Logger;
  now?: () => number;
}

export function commitPacer(options: CommitPacerOptions): CommitPacer {
  const now = options.now ?? Date.now;
  const lastCommitAt = new Map<number, number>();
  const pending = new Map<number, { offset: string; timer: NodeJS.Timeout }>();
  let flushing = options.intervalMs <= 0;
  // One commit at a time, in order, so an older offset never lands after a newer one.
  const oneAtATime = inOrder();

  function takePending(partition: number): string | undefined {
    const entry = pending.get(partition);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    pending.delete(partition);
    return entry.offset;
  }

  async function commitPending(partition: number): Promise<void> {
    const offset = takePending(partition);
    if (offset === undefined) return;
    try {
      await oneAtATime(() => options.commitLater(partition, offset));
      lastCommitAt.set(partition, now());
    } catch (error) {
      // A rebalance or a broker failover: the partition's next reader starts at the last commit.
      options.logger.warn('paced commit failed; its messages will be read again', {
        partition,
        offset,
        ...errorFields(error),
      });
    }
  }

  return {
    async commit(partition, offset, commitNow) {
      const since = now() - (lastCommitAt.get(partition) ?? -Infinity);
      if (flushing || since >= options.intervalMs) {
        takePending(partition);
        await oneAtATime(() => commitNow(offset));
        lastCommitAt.set(partition, now());
        return;
      }
      const entry = pending.get(partition);
      if (entry) entry.offset = offset;
      else {
        const timer = setTimeout(() => void commitPending(partition), options.intervalMs - since);
        pending.set(partition, { offset, timer });
      }
    },
    retain(assigned) {
      for (const partition of [...pending.keys(), ...lastCommitAt.keys()])
        if (!assigned.includes(partition)) {
          takePending(partition);
          lastCommitAt.delete(partition);
        }
    },
    async flush() {
      flushing = true;
      await Promise.all([...pending.keys()].map(commitPending));
    },
  };
}
