// The scheduled-job helper (stream/jobs/schedule.ts) reads cron expressions in UTC whatever the
// host's time zone: a job documented for 02:30 UTC runs at 02:30 UTC. A file of its own because
// node-cron keeps the formatter of the host's zone once made, so the zone is set before any job.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, it } from 'vitest';
import { createLogger } from '../../common/logger.ts';
import { scheduleJob, type ScheduledJob } from '../../stream/jobs/schedule.ts';
import { env, eventually, ownKeyPrefix, testRedis } from '../support/api.ts';

describe('scheduled jobs in UTC', () => {
  const zone = process.env.TZ;
  let job: ScheduledJob | undefined;
  afterAll(async () => {
    await job?.stop();
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('happy: an hour field means the UTC hour on a host in another zone', async () => {
    // Tokyo is UTC+9 all year: the current UTC hour and the next are never Tokyo's local hours now.
    process.env.TZ = 'Asia/Tokyo';
    const hour = new Date().getUTCHours();
    let ran = 0;
    job = scheduleJob(
      {
        name: `test-${randomUUID().slice(0, 8)}`,
        cron: `* * ${hour},${(hour + 1) % 24} * * *`,
        lockTtlMs: 60_000,
        run: async () => void ran++,
      },
      {
        redis: await testRedis(),
        prefix: ownKeyPrefix(`${env.REDIS_KEY_PREFIX}test-jobs-${randomUUID().slice(0, 8)}:`),
        logger: createLogger('error'),
      },
    );
    await eventually(async () => (ran > 0 ? true : undefined), 15_000, 'a run in this UTC hour');
  });
});
