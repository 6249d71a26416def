// Flushes the key audit outbox into ClickHouse on a schedule inside the stream worker
// (stream/main.ts): after a ClickHouse outage, or after a CLI run that could not reach it, the
// queued events reach key_audit_events within KEY_AUDIT_FLUSH_CRON (default every minute).
// Several workers may flush at once: every event is inserted with its own deduplication token.
import cron from 'node-cron';
import { z } from 'zod';
import { parseEnv } from '../env.ts';
import type { Platform } from '../platform.ts';
import { keyAuditFlusher } from './key-audit-flush.ts';

export const keyAuditScheduleEnvSchema = z.object({
  KEY_AUDIT_FLUSH_CRON: z
    .string()
    .default('* * * * *')
    .refine((expression) => cron.validate(expression), 'must be a cron expression'),
});

export interface KeyAuditFlushTask {
  stop(): Promise<void>;
}

export function startKeyAuditFlush(platform: Platform, env: NodeJS.ProcessEnv): KeyAuditFlushTask {
  const { KEY_AUDIT_FLUSH_CRON } = parseEnv(keyAuditScheduleEnvSchema, env);
  const flusher = keyAuditFlusher({
    redis: platform.redis,
    clickhouse: platform.clickhouse,
    prefix: platform.env.REDIS_KEY_PREFIX,
    logger: platform.logger.child({ task: 'key-audit-flush' }),
  });
  const task = cron.schedule(KEY_AUDIT_FLUSH_CRON, () => flusher.soon(), { name: 'key-audit-flush' });
  return {
    async stop() {
      await task.stop();
      await flusher.idle();
    },
  };
}
