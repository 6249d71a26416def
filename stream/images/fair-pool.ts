// A pool of `total` slots shared fairly by accounts (issue 13 item 11: one tenant whose image
// servers hang used to hold every slot, so every other tenant's checks waited behind it).
// - Each account gets up to `share` slots before anyone borrows: a free slot goes to the waiting
//   account with the fewest running tasks (turn order breaks ties), so a newcomer starts at the
//   next free slot.
// - Slots nobody below their share wants are lent to accounts that have more work, in turns, but
//   only while `share` slots stay free: a newcomer never waits for a borrowed slot to come back
//   (which could take a whole request timeout). A lone busy account uses total − share slots.
// FIFO within an account. Starting or finishing a task scans only the accounts that are waiting.
import { createKeyedSlots, type Fifo } from './keyed-slots.ts';

export function createFairPool(total: number, share: number) {
  return createKeyedSlots((slots) => {
    // Shares first: the waiting account with the fewest running tasks (turn order breaks ties),
    // while it is below its share and slots are free.
    while (slots.running < total) {
      let pick: [string, Fifo] | undefined;
      let fewest = share;
      for (const [key, queue] of slots.queues) {
        const mine = slots.runningOf(key);
        if (mine < fewest) [pick, fewest] = [[key, queue], mine];
        if (mine === 0) break; // nobody has fewer
      }
      if (!pick) break;
      slots.startNext(...pick);
    }
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
