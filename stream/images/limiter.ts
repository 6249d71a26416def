// Bounded concurrency: at most `total` tasks at once, and at most `perKey` per key (host).
export function createLimiter(total: number, perKey: number) {
  let running = 0;
  const perKeyRunning = new Map<string, number>();
  const waiting: { key: string; start: () => void }[] = [];

  function pump(): void {
    for (let i = 0; i < waiting.length && running < total;) {
      const next = waiting[i]!;
      if ((perKeyRunning.get(next.key) ?? 0) >= perKey) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      running++;
      perKeyRunning.set(next.key, (perKeyRunning.get(next.key) ?? 0) + 1);
      next.start();
    }
  }

  return function run<T>(key: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      waiting.push({
        key,
        start: () => {
          task()
            .then(resolve, reject)
            .finally(() => {
              running--;
              const left = (perKeyRunning.get(key) ?? 1) - 1;
              if (left) perKeyRunning.set(key, left);
              else perKeyRunning.delete(key);
              pump();
            });
        },
      });
      pump();
    });
  };
}
