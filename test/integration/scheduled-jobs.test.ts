// The stream worker's scheduled-job helper (stream/jobs/schedule.ts) against the real Redis, with
// per-second cron expressions: two workers of one job run each scheduled time once, every run is
// counted by outcome, and stop() ends it (UTC: scheduled-jobs-utc.test.ts).
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import {
  scheduledJobDuration,
  scheduledJobLastSuccess,
  scheduledJobRuns,
} from '../../common/metrics/registry.ts';
import { scheduleJob, type Job, type JobRun, type ScheduledJob } from '../../stream/jobs/schedule.ts';
import { env, eventually, testRedis } from '../support/api.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const deps = async () => ({
  redis: await testRedis(),
  prefix: `${env.REDIS_KEY_PREFIX}test-jobs-${randomUUID().slice(0, 8)}:`,
  logger: createLogger('error'),
});

async function runsOf(job: string, outcome: string): Promise<number> {
  const { values } = await scheduledJobRuns.get();
  return values.find((v) => v.labels.job === job && v.labels.outcome === outcome)?.value ?? 0;
}

describe('scheduled jobs', () => {
  const scheduled: ScheduledJob[] = [];
  afterEach(async () => {
    await Promise.all(scheduled.splice(0).map((job) => job.stop()));
  });

  it('happy: two workers run each scheduled time once (the lock), and every run is counted', async () => {
    const shared = await deps();
    const name = `test-${randomUUID().slice(0, 8)}`;
    const runs: { worker: string; at: Date }[] = [];
    const job = (worker: string): Job => ({
      name,
      cron: '* * * * * *',
      lockTtlMs: 60_000,
      async run({ at }) {
        runs.push({ worker, at });
      },
    });
    scheduled.push(scheduleJob(job('a'), shared), scheduleJob(job('b'), shared));
    await eventually(async () => (runs.length >= 3 ? true : undefined), 30_000, 'three runs');
    await Promise.all(scheduled.splice(0).map((s) => s.stop()));

    const times = runs.map((run) => run.at.toISOString());
    expect(new Set(times).size).toBe(times.length); // no scheduled time ran twice
    for (const time of times) expect(time).toMatch(/\.000Z$/); // the scheduled second, not the clock
    expect(await runsOf(name, 'succeeded')).toBe(runs.length);
    expect(await runsOf(name, 'failed')).toBe(0);
    expect(await runsOf(name, 'skipped')).toBeGreaterThanOrEqual(1); // the other worker, each time
    const { values } = await scheduledJobDuration.get();
    const count = values.find(
      (v) =>
        v.metricName === 'scheduled_job_duration_seconds_count' &&
        v.labels.job === name &&
        v.labels.outcome === 'succeeded',
    );
    expect(count?.value).toBe(runs.length);
    // When it last succeeded (the alert on a job that stopped running reads it).
    const { values: last } = await scheduledJobLastSuccess.get();
    const lastRun = last.find((v) => v.labels.job === name)?.value ?? 0;
    expect(Math.abs(lastRun - Date.now() / 1000)).toBeLessThan(60);
  });

  it('happy: stop() aborts the run in flight, waits for it and ends the schedule', async () => {
    const name = `test-${randomUUID().slice(0, 8)}`;
    const started: JobRun[] = [];
    let finished = 0;
    const job = scheduleJob(
      {
        name,
        cron: '* * * * * *',
        lockTtlMs: 60_000,
        run: async (run) => {
          started.push(run);
          await new Promise((resolve) => run.signal.addEventListener('abort', resolve, { once: true }));
          finished++;
        },
      },
      await deps(),
    );
    await eventually(async () => (started.length ? true : undefined), 20_000, 'a run');
    await job.stop();
    expect(started[0]!.signal.aborted).toBe(true);
    expect(finished).toBe(started.length); // stop() returned after the run ended
    const runs = started.length;
    await sleep(2_500);
    expect(started.length).toBe(runs);
  });

  it('error: a failed run is counted and logged, and the next scheduled time runs again', async () => {
    const name = `test-${randomUUID().slice(0, 8)}`;
    let attempts = 0;
    scheduled.push(
      scheduleJob(
        {
          name,
          cron: '* * * * * *',
          lockTtlMs: 60_000,
          run: async () => {
            attempts++;
            throw new Error('warehouse down');
          },
        },
        await deps(),
      ),
    );
    await eventually(
      async () => ((await runsOf(name, 'failed')) >= 2 ? true : undefined),
      20_000,
      'two failures',
    );
    expect(attempts).toBeGreaterThanOrEqual(2);
  });

  it('error: an expression that is not cron is refused when the job is scheduled', async () => {
    const job: Job = { name: 'bad', cron: 'every minute', lockTtlMs: 1_000, run: async () => undefined };
    const shared = await deps();
    expect(() => scheduleJob(job, shared)).toThrow(/bad: "every minute" is not a cron expression/);
  });
});
