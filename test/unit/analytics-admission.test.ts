// Fair admission of analytics computations (analytics-api/admission.ts): per-account and total
// limits, round-robin across waiting accounts, a bounded queue per account.
import { describe, expect, it } from 'vitest';
import { createAdmission } from '../../analytics-api/admission.ts';
import { AppError } from '../../common/errors.ts';

/** A computation the test finishes by hand; `started` says whether the admission let it run. */
function job(admission: ReturnType<typeof createAdmission>, account: string, log: string[]) {
  let finish!: () => void;
  const gate = new Promise<void>((resolve) => (finish = resolve));
  const state = { started: false, finish, done: undefined as unknown as Promise<string> };
  state.done = admission.run(account, async () => {
    state.started = true;
    log.push(account);
    await gate;
    return account;
  });
  return state;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('analytics admission', () => {
  it('happy: runs at most perAccount computations of one account, the rest wait their turn', async () => {
    const admission = createAdmission({ total: 8, perAccount: 2, queuePerAccount: 10 });
    const log: string[] = [];
    const jobs = Array.from({ length: 4 }, () => job(admission, 'a', log));
    await settle();
    expect(jobs.map((j) => j.started)).toEqual([true, true, false, false]);
    expect(admission.stats()).toEqual({ running: 2, queued: 2 });
    jobs[0]!.finish();
    await jobs[0]!.done;
    await settle();
    expect(jobs.map((j) => j.started)).toEqual([true, true, true, false]);
    for (const j of jobs) j.finish();
    await Promise.all(jobs.map((j) => j.done));
    expect(admission.stats()).toEqual({ running: 0, queued: 0 });
  });

  it('happy: another account runs at once while one account waits on its own limit', async () => {
    const admission = createAdmission({ total: 8, perAccount: 2, queuePerAccount: 10 });
    const log: string[] = [];
    const flood = Array.from({ length: 6 }, () => job(admission, 'flood', log));
    const other = job(admission, 'other', log);
    await settle();
    expect(other.started).toBe(true);
    expect(flood.filter((j) => j.started)).toHaveLength(2);
    for (const j of [...flood, other]) j.finish();
    await Promise.all([...flood, other].map((j) => j.done));
  });

  it('happy: a freed slot goes to the waiting accounts in turn, not to the longest queue', async () => {
    const admission = createAdmission({ total: 2, perAccount: 2, queuePerAccount: 10 });
    const log: string[] = [];
    const flood = Array.from({ length: 6 }, () => job(admission, 'flood', log));
    await settle();
    const other = [job(admission, 'other', log), job(admission, 'other', log)];
    const third = job(admission, 'third', log);
    await settle();
    expect(log).toEqual(['flood', 'flood']);
    // Finish one at a time; each freed slot goes to the next account in the round.
    const finishOldestRunning = async () => {
      const running = [...flood, ...other, third].find((j) => j.started && !('ended' in j));
      Object.assign(running!, { ended: true });
      running!.finish();
      await running!.done;
      await settle();
    };
    for (let i = 0; i < 4; i += 1) await finishOldestRunning();
    // After the two first floods: flood's queue came first, then other, third, flood again…
    expect(log.slice(2, 6)).toEqual(['flood', 'other', 'third', 'flood']);
    for (const j of [...flood, ...other, third]) j.finish();
    await Promise.all([...flood, ...other, third].map((j) => j.done));
    expect(admission.stats()).toEqual({ running: 0, queued: 0 });
  });

  it('error: a full queue of the account is a 429 concurrency_limited with Retry-After, others unaffected', async () => {
    const admission = createAdmission({ total: 8, perAccount: 1, queuePerAccount: 2 });
    const log: string[] = [];
    const admitted = Array.from({ length: 3 }, () => job(admission, 'flood', log));
    const refused = admission.run('flood', () => Promise.resolve('never'));
    const error = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('concurrency_limited');
    expect((error as AppError).status).toBe(429);
    expect((error as AppError).options.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect((error as AppError).message).toMatch(/1 analytics requests running and 2 waiting/);
    const other = job(admission, 'other', log);
    await settle();
    expect(other.started).toBe(true);
    for (const j of [...admitted, other]) j.finish();
    await Promise.all([...admitted, other].map((j) => j.done));
  });

  it('error: a computation that fails frees its slot', async () => {
    const admission = createAdmission({ total: 1, perAccount: 1, queuePerAccount: 1 });
    await expect(admission.run('a', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(admission.run('a', () => Promise.resolve(7))).resolves.toBe(7);
    expect(admission.stats()).toEqual({ running: 0, queued: 0 });
  });
});
