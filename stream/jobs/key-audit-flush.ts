// Flushes the key audit outbox into ClickHouse on its schedule (KEY_AUDIT_FLUSH_CRON, default every
// minute): after a ClickHouse outage, or after a CLI run that could not reach it, the queued events
// reach key_audit_events within a minute. The API flushes right after each change too; every event
// is inserted with its own deduplication token, so flushes that overlap store it once.
import { flushKeyAudit } from '../../common/auth/key-audit-flush.ts';
import type { Platform } from '../../common/platform.ts';
import type { Job } from './schedule.ts';

export function keyAuditFlushJob(platform: Platform, cron: string): Job {
  const deps = {
    redis: platform.redis,
    clickhouse: platform.clickhouse,
    prefix: platform.env.REDIS_KEY_PREFIX,
    parts: platform.env.REDIS_GLOBAL_PARTS,
    logger: platform.logger.child({ task: 'key-audit-flush' }),
  };
  return {
    name: 'key-audit-flush',
    cron,
    lockTtlMs: 55_000,
    async run() {
      await flushKeyAudit(deps);
    },
  };
}
