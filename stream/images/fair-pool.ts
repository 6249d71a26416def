// A pool of `total` slots shared fairly by accounts (issue 13 item 11: one tenant whose image
// servers hang used to hold every slot, so every other tenant's checks waited behind it).
// - Each account gets up to `share` slots before anyone borrows: a free slot goes to the waiting
//   account with the fewest running tasks (turn order breaks ties), so a newcomer starts at the
//   next free slot.
// - Slots nobody below their share wants are lent to accounts that have more work, in turns, but
//   only while `share` slots stay free: a newcomer never waits for a borrowed slot to come back
//   (which could take a whole request timeout). A lone busy account uses total − share slots.
// FIFO within an account. Starting or finishing a task scans only the accounts that are waiting.
import { Fifo } from './limiter.ts';

export function createFairPool(total: number, share: number) {
  let running = 0;
  const runningPer = new Map<string, number>();
  /** Accounts with waiting tasks, in turn order (a Map iterates in insertion order). */
  const queues = new Map<string, Fifo>();
  let abortedWith: Error | undefined;

  function startNext(key: string, queue: Fifo): void {
    const { start } = queue.take();
    queues.delete(key);
    if (queue.size) queues.set(key, queue); // back of the line: accounts take turns
    running++;
    runningPer.set(key, (runningPer.get(key) ?? 0) + 1);
    start();
  }

  function pump(): void {
    // Shares first: the waiting account with the fewest running tasks (turn order breaks ties),
    // while it is below its share and slots are free.
    while (running < total) {
      let pick: [string, Fifo] | undefined;
      let fewest = share;
      for (const [key, queue] of queues) {
        const mine = runningPer.get(key) ?? 0;
        if (mine < fewest) [pick, fewest] = [[key, queue], mine];
        if (mine === 0) break; // nobody has fewer
      }
      if (!pick) break;
      startNext(...pick);
    }
    // Then lend idle slots, in turn, keeping `share` free for whoever comes next.
    let progress = true;
    while (progress && running < total - share) {
      progress = false;
      for (const [key, queue] of queues) {
        if (running >= total - share) return;
        startNext(key, queue);
        progress = true;
      }
    }
  }

  function finished(key: string): void {
    running--;
    const left = (runningPer.get(key) ?? 1) - 1;
    if (left) runningPer.set(key, left);
    else runningPer.delete(key);
    pump();
  }

  return {
    run<T>(key: string, task: () => Promise<T>): Promise<T> {
      if (abortedWith) return Promise.reject(abortedWith);
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          task()
            .then(resolve, reject)
            .finally(() => finished(key));
        };
        let queue = queues.get(key);
        if (!queue) queues.set(key, (queue = new Fifo()));
        queue.push({ start, reject });
        pump();
      });
    },
    /** Tasks running now, per account (for tests and logs). */
    running: (key: string) => runningPer.get(key) ?? 0,
    /** Shutdown: every task not started yet (and every later one) rejects with `error` at once. */
    abort(error: Error): void {
      abortedWith = error;
      const waiting = [...queues.values()];
      queues.clear();
      for (const queue of waiting) while (queue.size) queue.take().reject(error);
    },
  };
}

export type FairPool = ReturnType<typeof createFairPool>;
