// The scheduled-job helper (stream/jobs/schedule.ts) reads cron expressions in UTC whatever the
// host's time zone: a job documented for 02:30 UTC runs at 02:30 UTC. A file of its own because
// node-cron keeps the formatter of the host's zone once made, so the zone is set before any job.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { scheduleJob, type ScheduledJob } from '../../stream/jobs/schedule.ts';
import { env, eventually, testRedis } from '../support/api.ts';

describe('scheduled jobs in UTC', () => {
  const zone = process.env.TZ;
  let job: ScheduledJob | undefined;
  afterAll(async () => {
    await job?.stop();
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('happy: a job set for a UTC second runs once, in that second, on a host in another zone', async () => {
    // Tokyo is UTC+9 all year: read as local time, the job below would run nine hours from now.
    process.env.TZ = 'Asia/Tokyo';
    const at = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_000);
    const runs: Date[] = [];
    job = scheduleJob(
      {
        name: `test-${randomUUID().slice(0, 8)}`,
        cron: `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`,
        lockTtlMs: 60_000,
        run: async () => void runs.push(new Date()),
      },
      {
        redis: await testRedis(),
        prefix: `${env.REDIS_KEY_PREFIX}test-jobs-${randomUUID().slice(0, 8)}:`,
        logger: createLogger('error'),
      },
    );
    await eventually(async () => (runs.length ? true : undefined), 10_000, 'the run at its UTC second');
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // a second run would come now
    expect(runs).toHaveLength(1);
    // Fired by its timer in that second (a loaded machine may start it late, never early).
    expect(runs[0]!.getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(runs[0]!.getTime() - at.getTime()).toBeLessThan(2_000);
  });
});
