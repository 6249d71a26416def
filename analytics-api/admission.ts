// Fair admission of analytics computations (cache misses) to the warehouse: at most `total` run at
// once in this process, at most `perAccount` of them for one account, and the rest wait in a
// queue per account. A freed slot goes to the accounts that wait in turn (round-robin), so one
// account's burst — many keys, many distinct questions — queues behind its own requests while
// another account's question runs at the next free slot. An account whose queue is full is
// refused at once with 429 concurrency_limited: a burst never holds memory or sockets unbounded.
import { AppError } from '../common/errors.ts';
import { analyticsAdmission, analyticsAdmissionRejections } from '../common/metrics/registry.ts';

export interface AdmissionLimits {
  /** Computations running at once in this process (all accounts). */
  total: number;
  /** Computations running at once for one account. */
  perAccount: number;
  /** Computations of one account waiting for a slot; one more is refused. */
  queuePerAccount: number;
}

export interface Admission {
  /** Runs `work` once a slot is free for `account`; throws 429 concurrency_limited when its queue is full. */
  run<T>(account: string, work: () => Promise<T>): Promise<T>;
  /** Running and waiting computations (for metrics and tests). */
  stats(): { running: number; queued: number };
}

/** What a refused request is told to wait: the queue ahead of it drains within seconds. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

export function createAdmission(limits: AdmissionLimits): Admission {
  let running = 0;
  const runningOf = new Map<string, number>();
  // Accounts with waiting computations, in the order they are served next: an account served
  // goes to the back (Map keeps insertion order).
  const queues = new Map<string, (() => void)[]>();
  let queued = 0;

  const report = () => {
    analyticsAdmission.set({ state: 'running' }, running);
    analyticsAdmission.set({ state: 'queued' }, queued);
  };

  function start(account: string): void {
    running += 1;
    runningOf.set(account, (runningOf.get(account) ?? 0) + 1);
  }

  function finish(account: string): void {
    running -= 1;
    const left = (runningOf.get(account) ?? 1) - 1;
    if (left > 0) runningOf.set(account, left);
    else runningOf.delete(account);
    dispatch();
    report();
  }

  /** Hands free slots to waiting accounts in turn, skipping those at their own limit. */
  function dispatch(): void {
    while (running < limits.total) {
      const next = [...queues].find(([account]) => (runningOf.get(account) ?? 0) < limits.perAccount);
      if (!next) return;
      const [account, queue] = next;
      const wake = queue.shift()!;
      queued -= 1;
      queues.delete(account);
      if (queue.length) queues.set(account, queue);
      start(account);
      wake();
    }
  }

  async function waitForSlot(account: string): Promise<void> {
    const queue = queues.get(account) ?? [];
    if (queue.length >= limits.queuePerAccount) {
      analyticsAdmissionRejections.inc();
      throw new AppError(
        'concurrency_limited',
        `This account already has ${limits.perAccount} analytics requests running and ${queue.length} waiting; ` +
          `retry after ${BUSY_RETRY_AFTER_SECONDS} s`,
        {
          retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
          details: {
            running_limit: limits.perAccount,
            queue_limit: limits.queuePerAccount,
            retry_after_seconds: BUSY_RETRY_AFTER_SECONDS,
          },
        },
      );
    }
    const turn = new Promise<void>((resolve) => queue.push(resolve));
    queues.set(account, queue);
    queued += 1;
    report();
    await turn; // the slot was taken for us by dispatch()
  }

  return {
    async run(account, work) {
      const free =
        running < limits.total && (runningOf.get(account) ?? 0) < limits.perAccount && !queues.has(account);
      if (free) {
        start(account);
        report();
      } else {
        await waitForSlot(account);
      }
      try {
        return await work();
      } finally {
        finish(account);
      }
    },
    stats: () => ({ running, queued }),
  };
}
