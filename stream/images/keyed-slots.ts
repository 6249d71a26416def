// What the image pools share: tasks queued per key (an account, a host), FIFO within a key, keys
// taking turns, a count of running tasks overall and per key, and shutdown. When a task is queued
// or one finishes, the pool's `pump` policy decides which waiting keys start next (limiter.ts: a
// cap per key; fair-pool.ts: fair shares per account). Starting or finishing a task scans only the
// keys that are waiting, never the waiting tasks (a single waiting list scanned on every completion
// was O(n²): ~280,000 queued images on one host kept a worker's event loop busy for minutes).

export interface SlotState {
  /** Tasks running now. */
  readonly running: number;
  runningOf(key: string): number;
  /** Keys with waiting tasks, in turn order (a Map iterates in insertion order). */
  readonly queues: ReadonlyMap<string, Fifo>;
  /** Starts the key's oldest waiting task and sends the key to the back of the line. */
  startNext(key: string, queue: Fifo): void;
}

export function createKeyedSlots(pump: (state: SlotState) => void) {
  let running = 0;
  const runningPer = new Map<string, number>();
  const queues = new Map<string, Fifo>();
  let abortedWith: Error | undefined;

  const state: SlotState = {
    get running() {
      return running;
    },
    runningOf: (key) => runningPer.get(key) ?? 0,
    queues,
    startNext(key, queue) {
      const { start } = queue.take();
      queues.delete(key);
      if (queue.size) queues.set(key, queue); // back of the line: keys take turns
      running++;
      runningPer.set(key, (runningPer.get(key) ?? 0) + 1);
      start();
    },
  };

  function finished(key: string): void {
    running--;
    const left = (runningPer.get(key) ?? 1) - 1;
    if (left) runningPer.set(key, left);
    else runningPer.delete(key);
    pump(state);
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
        pump(state);
      });
    },
    /** Tasks running now for a key (for tests and logs). */
    running: (key: string) => runningPer.get(key) ?? 0,
    /**
     * Shutdown: every task not started yet (and every later one) rejects with `error` at once;
     * running tasks finish on their own deadline.
     */
    abort(error: Error): void {
      abortedWith = error;
      const waiting = [...queues.values()];
      queues.clear();
      for (const queue of waiting) while (queue.size) queue.take().reject(error);
    },
  };
}

export interface Waiting {
  start: () => void;
  reject: (error: Error) => void;
}

/** FIFO of waiting tasks with O(1) take (Array#shift copies large arrays). */
export class Fifo {
  private items: Waiting[] = [];
  private head = 0;
  get size(): number {
    return this.items.length - this.head;
  }
  push(item: Waiting): void {
    this.items.push(item);
  }
  take(): Waiting {
    const item = this.items[this.head]!;
    this.items[this.head++] = undefined as never; // let the closure be collected
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
