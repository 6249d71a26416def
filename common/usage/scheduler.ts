// Runs the usage rollup on a cron schedule inside the stream worker process (stream/main.ts).
// USAGE_ROLLUP_CRON (default every minute) sets the schedule; a Redis lock in rollupUsage keeps
// several workers from rolling up the same minute twice.
import cron from 'node-cron';
import { z } from 'zod';
import { parseEnv } from '../env.ts';
import { errorFields } from '../logger.ts';
import type { Platform } from '../platform.ts';
import { rollupUsage } from './rollup.ts';

export const usageRollupEnvSchema = z.object({
  USAGE_ROLLUP_CRON: z
    .string()
    .default('* * * * *')
    .refine((expression) => cron.validate(expression), 'must be a cron expression'),
});

export interface UsageRollupTask {
  stop(): Promise<void>;
}

export function startUsageRollup(platform: Platform, env: NodeJS.ProcessEnv): UsageRollupTask {
  const { USAGE_ROLLUP_CRON } = parseEnv(usageRollupEnvSchema, env);
  const logger = platform.logger.child({ task: 'usage-rollup' });
  const deps = {
    redis: platform.redis,
    clickhouse: platform.clickhouse,
    prefix: platform.env.REDIS_KEY_PREFIX,
  };
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    USAGE_ROLLUP_CRON,
    () => {
      running = rollupUsage(deps)
        .then((rows) => rows !== null && logger.debug('usage rolled up', { rows }))
        .catch((error) => logger.warn('usage rollup failed; next run retries', errorFields(error)));
      return running;
    },
    { noOverlap: true, name: 'usage-rollup' },
  );
  return {
    async stop() {
      await task.stop();
      await running;
    },
  };
}
