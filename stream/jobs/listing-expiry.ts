// Listing expiry on its schedule (LIFECYCLE_EXPIRY_CRON, default daily at 03:17 UTC): one worker of
// the cluster publishes the expiries of the listings due (stream/lifecycle/expiry.ts).
import type { Platform } from '../../common/platform.ts';
import { runExpiry, type ExpiryDeps } from '../lifecycle/expiry.ts';
import type { Job } from './schedule.ts';

export function listingExpiryJob(platform: Platform, cron: string, publish: ExpiryDeps['publish']): Job {
  const logger = platform.logger.child({ task: 'lifecycle-expiry' });
  return {
    name: 'lifecycle-expiry',
    cron,
    // Longer than a pass; a failed pass leaves its listings to the next day's, which finds them still due.
    lockTtlMs: 3_600_000,
    async run() {
      const started = Date.now();
      const expired = await runExpiry({ clickhouse: platform.clickhouse, publish });
      logger.info('expiry pass', { expired, ms: Date.now() - started });
    },
  };
}
