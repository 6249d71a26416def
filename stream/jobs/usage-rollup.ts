// The usage roll-up on its schedule (USAGE_ROLLUP_CRON, default every minute): Redis usage counters
// into ClickHouse api_key_usage_daily (stream/usage/rollup.ts).
import type { Platform } from '../../common/platform.ts';
import { rollupUsage } from '../usage/rollup.ts';
import type { Job } from './schedule.ts';

export function usageRollupJob(platform: Platform, cron: string): Job {
  const logger = platform.logger.child({ task: 'usage-rollup' });
  const deps = {
    redis: platform.redis,
    clickhouse: platform.clickhouse,
    prefix: platform.env.REDIS_KEY_PREFIX,
    parts: platform.env.REDIS_GLOBAL_PARTS,
  };
  return {
    name: 'usage-rollup',
    cron,
    lockTtlMs: 55_000,
    async run() {
      const rows = await rollupUsage(deps);
      logger.debug('usage rolled up', { rows });
    },
  };
}
