// Bounded concurrency: at most `total` tasks at once, and at most `perKey` per key (host), FIFO per
// key, hosts taking turns (keyed-slots.ts). Only keys below their limit start, so a pump visits at
// most total / perKey keys that are at their limit.
import { createKeyedSlots } from './keyed-slots.ts';

export function createLimiter(total: number, perKey: number) {
  return createKeyedSlots((slots) => {
    for (const [key, queue] of slots.queues) {
      if (slots.running >= total) return;
      if (slots.runningOf(key) >= perKey) continue;
      slots.startNext(key, queue);
    }
  });
}
