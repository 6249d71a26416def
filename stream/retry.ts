// Retry of idempotent reads/side effects that fail transiently (ClickHouse or Redis briefly away),
// heartbeating to Kafka while waiting so a short outage does not cost the partition assignment.
// A revoked batch (`signal`, offset-consumer.ts) stops retrying at once: it will not be committed.
import { errorFields, type Logger } from '../common/logger.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export async function retryWhileRunning<T>(
  what: string,
  fn: () => Promise<T>,
  options: { heartbeat: () => Promise<void>; isRunning: () => boolean; logger: Logger; signal?: AbortSignal },
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!options.isRunning()) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      const delay = Math.min(200 * 2 ** attempt, 5_000);
      options.logger.warn(`${what} failed, retrying`, { attempt, delay_ms: delay, ...errorFields(error) });
      await options.heartbeat().catch(() => undefined); // the retry itself is logged above
      await sleep(delay);
      if (options.signal?.aborted) throw options.signal.reason;
    }
  }
}
