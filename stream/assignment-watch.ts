// Heartbeats a Kafka batch's member while the batch is being stored, and turns what the heartbeat
// says into a revocation. The heartbeat errors used to be swallowed, so a member
// stuck in a long ClickHouse outage went on retrying its insert after the group had moved its
// partitions to another member: both stored the same positions. Now:
// - a heartbeat answer that the group is rebalancing or no longer knows this member
//   (REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION, NOT_COORDINATOR, UNKNOWN_MEMBER_ID,
//   FENCED_INSTANCE_ID) revokes the batch at once;
// - so does going `sessionTimeoutMs − 2 × intervalMs` without one successful heartbeat (Kafka
//   unreachable from here: the coordinator will expire the session at sessionTimeoutMs);
// - and a new assignment without the batch's partition (revoke(), from the consumer's GROUP_JOIN).
// The signal reaches every write of the batch through its fence (sink/batch-fence.ts): the batch is
// not committed, and its writes are dropped if nothing of it can be stored yet (else completed). A
// kafkajs rebalancing error is the abort reason as it came, so kafkajs rejoins the group as soon as
// the batch gives up.
import type { Logger } from '../common/logger.ts';
import { BatchRevokedError } from './sink/batch-fence.ts';

const REVOKING = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'NOT_COORDINATOR',
  'NOT_COORDINATOR_FOR_GROUP',
  'UNKNOWN_MEMBER_ID',
  'FENCED_INSTANCE_ID',
]);

/** A heartbeat error saying this member's assignment is gone (or about to be replaced). */
export function revokesAssignment(error: unknown): boolean {
  return REVOKING.has(String((error as { type?: unknown } | null)?.type ?? ''));
}

export interface AssignmentWatchOptions {
  heartbeat: () => Promise<void>;
  intervalMs: number;
  sessionTimeoutMs: number;
  logger: Logger;
  /** For the log line. */
  partition: number;
  now?: () => number;
}

export interface AssignmentWatch {
  signal: AbortSignal;
  revoke(reason: Error): void;
  stop(): void;
}

export function watchAssignment(options: AssignmentWatchOptions): AssignmentWatch {
  const now = options.now ?? Date.now;
  const controller = new AbortController();
  let lastOk = now();
  const sessionLostAfter = options.sessionTimeoutMs - 2 * options.intervalMs;

  function revoke(reason: Error): void {
    if (controller.signal.aborted) return;
    options.logger.warn('batch revoked: it will not be committed', {
      partition: options.partition,
      reason: reason.message,
    });
    controller.abort(reason);
  }

  const timer = setInterval(() => {
    options.heartbeat().then(
      () => (lastOk = now()),
      (error: unknown) => {
        if (revokesAssignment(error)) revoke(error as Error);
        else if (now() - lastOk >= sessionLostAfter)
          revoke(
            new BatchRevokedError(
              `no successful heartbeat for ${now() - lastOk} ms: the group may have moved the partition`,
            ),
          );
      },
    );
  }, options.intervalMs);

  return {
    signal: controller.signal,
    revoke,
    stop: () => clearInterval(timer),
  };
}
