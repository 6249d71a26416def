// The commit pacer (stream/commit-pacer.ts): at most one commit per partition and interval, the
// newest offset of the batches in between committed by a timer, nothing pending after a flush.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { commitPacer } from '../../stream/commit-pacer.ts';

const logger = createLogger('error');

/** A pacer of 1 s whose commits are recorded: `now` at once, `later` by its timer or flush. */
function pacedRecorder(intervalMs = 1_000) {
  const now: string[] = [];
  const later: string[] = [];
  const commitNow = (offset: string) => {
    now.push(offset);
    return Promise.resolve();
  };
  const commitLater = (partition: number, offset: string) => {
    later.push(`${partition}@${offset}`);
    return Promise.resolve();
  };
  const pacer = commitPacer({ intervalMs, commitLater, logger, now: Date.now });
  return {
    now,
    later,
    pacer,
    /** Batches of `partition` ending at each of `offsets`, one after the other. */
    async batches(partition: number, ...offsets: string[]) {
      for (const offset of offsets) await pacer.commit(partition, offset, commitNow);
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('commit pacer (happy)', () => {
  it('commits the first batch at once and the newest of the next ones when the interval ends', async () => {
    const r = pacedRecorder();
    await r.batches(0, '10', '11', '12');
    expect(r.now).toEqual(['10']);
    expect(r.later).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(r.later).toEqual(['0@12']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(r.later).toEqual(['0@12']); // one timer, not one per batch
  });

  it('paces each partition on its own', async () => {
    const r = pacedRecorder();
    await r.batches(0, '5');
    await r.batches(1, '7');
    expect(r.now).toEqual(['5', '7']);
  });

  it('a batch after the interval commits at once and takes the pending offset with it', async () => {
    const r = pacedRecorder();
    await r.batches(0, '1', '2');
    vi.setSystemTime(Date.now() + 1_500); // the clock moves on, the timer has not run yet
    await r.batches(0, '3');
    expect(r.now).toEqual(['1', '3']);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(r.later).toEqual([]);
  });

  it('interval 0 commits every batch at once', async () => {
    const r = pacedRecorder(0);
    await r.batches(0, '1', '2', '3');
    expect(r.now).toEqual(['1', '2', '3']);
  });

  it('flush commits what is pending, and every later batch at once', async () => {
    const r = pacedRecorder();
    await r.batches(0, '1', '2');
    await r.batches(3, '9', '10');
    await r.pacer.flush();
    expect(r.later.sort()).toEqual(['0@2', '3@10']);
    await r.batches(0, '4');
    expect(r.now).toEqual(['1', '9', '4']);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(r.later).toHaveLength(2);
  });
});

describe('commit pacer (edge, error)', () => {
  it('drops what is pending for a partition that moved to another member', async () => {
    const r = pacedRecorder();
    await r.batches(0, '1', '2');
    await r.batches(1, '1', '2');
    r.pacer.retain([1]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(r.later).toEqual(['1@2']);
    // Assigned again later: its first batch commits at once (no memory of the old interval).
    await r.batches(0, '8');
    expect(r.now).toEqual(['1', '1', '8']);
  });

  it('never lets an older offset land after a newer one', async () => {
    const landed: string[] = [];
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const pacer = commitPacer({
      intervalMs: 1_000,
      commitLater: async (_p, offset) => {
        await slow; // the timer's commit is slow to answer
        landed.push(offset);
      },
      logger,
      now: Date.now,
    });
    await pacer.commit(0, '1', async (o) => void landed.push(o));
    await pacer.commit(0, '2', async (o) => void landed.push(o));
    await vi.advanceTimersByTimeAsync(1_000); // the timer starts committing '2'
    vi.setSystemTime(Date.now() + 1_000);
    const next = pacer.commit(0, '3', async (o) => void landed.push(o));
    release();
    await next;
    expect(landed).toEqual(['1', '2', '3']);
  });

  it('a failed paced commit is logged, not thrown, and the next batch commits again', async () => {
    const warnings: string[] = [];
    const pacer = commitPacer({
      intervalMs: 1_000,
      commitLater: () => Promise.reject(new Error('The group is rebalancing')),
      logger: { ...logger, warn: (msg: string) => void warnings.push(msg) },
      now: Date.now,
    });
    const now: string[] = [];
    await pacer.commit(0, '1', async (o) => void now.push(o));
    await pacer.commit(0, '2', async (o) => void now.push(o));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(warnings).toEqual(['paced commit failed; its messages will be read again']);
    await pacer.commit(0, '3', async (o) => void now.push(o));
    expect(now).toEqual(['1', '3']);
  });
});
