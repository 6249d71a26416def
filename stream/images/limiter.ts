// Bounded concurrency: at most `total` tasks at once, and at most `perKey` per key (host), FIFO per
// key. Waiting tasks sit in one queue per key, and only keys below their limit are scanned, so
// starting or finishing a task costs O(total / perKey) however long the queues get. (A single
// waiting list scanned on every completion was O(n²): ~280,000 queued images on one host kept a
// worker's event loop busy for minutes, starving its heartbeats and every other consumer.)
export function createLimiter(total: number, perKey: number) {
  let running = 0;
  const runningPerKey = new Map<string, number>();
  /** Keys with waiting tasks, in turn order (a Map iterates in insertion order). */
  const queues = new Map<string, Fifo>();

  function pump(): void {
    for (const [key, queue] of queues) {
      if (running >= total) return;
      if ((runningPerKey.get(key) ?? 0) >= perKey) continue; // at most total/perKey such keys
      const { start } = queue.take();
      queues.delete(key);
      if (queue.size) queues.set(key, queue); // back of the line: hosts take turns
      running++;
      runningPerKey.set(key, (runningPerKey.get(key) ?? 0) + 1);
      start();
    }
  }

  function finished(key: string): void {
    running--;
    const left = (runningPerKey.get(key) ?? 1) - 1;
    if (left) runningPerKey.set(key, left);
    else runningPerKey.delete(key);
    pump();
  }

  let abortedWith: Error | undefined;

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
