// A pool of `total` slots shared fairly by accounts (one tenant whose image
// servers hang used to hold every slot, so every other tenant's checks waited behind it).
// - Each account gets up to `share` slots before anyone borrows: a free slot goes to the waiting
//   account with the fewest running tasks, and among those to the one whose last start is oldest
//   (never started: oldest of all), so a newcomer starts at the next free slot even when an
//   account that just finished one queued its next photo before the newcomer arrived.
// - Slots nobody below their share wants are lent to accounts that have more work, in turns, but
//   only while `share` slots stay free: a newcomer never waits for a borrowed slot to come back
//   (which could take a whole request timeout). A lone busy account uses total − share slots.
// FIFO within an account. Starting or finishing a task scans only the accounts that are waiting.
import { createKeyedSlots, type Fifo } from './keyed-slots.ts';

export function createFairPool(total: number, share: number) {
  /** Start number of each account's latest start, for accounts waiting or running. */
  const lastStart = new Map<string, number>();
  let starts = 0;
  return createKeyedSlots((slots) => {
    // Shares first: the waiting account with the fewest running tasks (the oldest last start
    // breaks ties), while it is below its share and slots are free.
    while (slots.running < total) {
      let pick: [string, Fifo] | undefined;
      let fewest = share;
      let oldest = Number.POSITIVE_INFINITY;
      for (const [key, queue] of slots.queues) {
        const mine = slots.runningOf(key);
        const last = lastStart.get(key) ?? -1;
        if (mine < fewest || (mine === fewest && pick && last < oldest))
          [pick, fewest, oldest] = [[key, queue], mine, last];
      }
      if (!pick) break;
      lastStart.set(pick[0], starts++);
      slots.startNext(...pick);
    }
    // Forget accounts neither waiting nor running (bounded by what is in the pool).
    if (lastStart.size > 2 * (slots.queues.size + total))
      for (const key of lastStart.keys())
        if (!slots.queues.has(key) && !slots.runningOf(key)) lastStart.delete(key);
    // Then lend idle slots, in turn, keeping `share` free for whoever comes next.
    let progress = true;
    while (progress && slots.running < total - share) {
      progress = false;
      for (const [key, queue] of slots.queues) {
        if (slots.running >= total - share) return;
        slots.startNext(key, queue);
        progress = true;
      }
    }
  });
}

export type FairPool = ReturnType<typeof createFairPool>;
