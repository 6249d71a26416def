// The marks of batches in flight (stream/inflight-marks.ts) on the real Redis: a mark is live until
// cleared or until its deadline (Redis' clock) passes, renewing moves the deadline, and a member that
// died without clearing holds its partition's replay guard back only until then. A prefix of its own.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { inflightMarks, noneLive } from '../../stream/inflight-marks.ts';
import { testRedis } from '../support/api.ts';
import { sleep } from '../support/consumer-fixtures.ts';

const marksOfNewGroup = async () =>
  inflightMarks(await testRedis(), `test:inflight:${randomUUID()}:`, 'group', 'topic');

describe('in-flight marks', () => {
  it('happy: a mark is live until cleared, per partition', async () => {
    const marks = await marksOfNewGroup();
    await marks.mark(0, 'a', 30_000);
    await marks.mark(0, 'b', 30_000);
    await marks.mark(1, 'c', 30_000);
    expect([await marks.live(0), await marks.live(1), await marks.live(2)]).toEqual([2, 1, 0]);
    await marks.clear(0, 'a');
    expect(await marks.live(0)).toBe(1);
    await marks.clear(0, 'b');
    expect(await marks.live(0)).toBe(0);
  });

  it('fault: the mark of a member that died stops holding the partition at its deadline, and renewing moves it', async () => {
    const marks = await marksOfNewGroup();
    await marks.mark(0, 'dead', 2_000);
    await marks.mark(0, 'alive', 2_000);
    await sleep(1_200);
    await marks.mark(0, 'alive', 2_000); // renewed: 2 s from now
    await sleep(1_200);
    expect(await marks.live(0)).toBe(1); // 'dead' expired, 'alive' did not
    const started = Date.now();
    await noneLive(marks, 0, new AbortController().signal, createLogger('error'));
    expect(Date.now() - started).toBeLessThan(2_500); // waited for 'alive' to expire (~0.8 s), no longer
    expect(await marks.live(0)).toBe(0);
  });

  it('error: a wait for marks stops when its batch is revoked', async () => {
    const marks = await marksOfNewGroup();
    await marks.mark(0, 'other', 30_000);
    const revoked = new AbortController();
    const waiting = noneLive(marks, 0, revoked.signal, createLogger('error'));
    revoked.abort(new Error('revoked'));
    await expect(waiting).rejects.toThrow('revoked');
  });
});
