// A worker process (stream worker or image process) announces itself in the worker registry every
// few seconds with its consumers' partitions and lag, so /healthz on any API process can tell
// whether the pipeline behind it is alive; every tenth beat also logs the lag, for operators
// without access to /healthz.
import type { Redis } from 'ioredis';
import { errorFields, type Logger } from '../common/logger.ts';
import { HEARTBEAT_INTERVAL_MS, workerRegistry } from '../common/worker-registry.ts';

export interface ReportingConsumer {
  assigned(): number[];
  lag(): Record<string, number>;
}

export interface Heartbeat {
  /** Stops beating; the worker stays registered until leave() (or until its last beat goes stale). */
  stop(): void;
  /** Removes the worker from the registry, once its consumers have stopped. */
  leave(): Promise<void>;
}

export async function startHeartbeat(options: {
  redis: Redis;
  prefix: string;
  workerId: string;
  role: string;
  consumers: Record<string, ReportingConsumer>;
  logger: Logger;
}): Promise<Heartbeat> {
  const { workerId, role, consumers, logger } = options;
  const registry = workerRegistry(options.redis, options.prefix);
  const startedAt = new Date().toISOString();
  let beats = 0;
  const beat = async () => {
    const report = Object.fromEntries(
      Object.entries(consumers).map(([name, c]) => [name, { partitions: c.assigned(), lag: c.lag() }]),
    );
    if (beats++ % 10 === 0)
      logger.info('lag', { lag: report, rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20) });
    await registry.beat({
      worker_id: workerId,
      role,
      pid: process.pid,
      started_at: startedAt,
      consumers: report,
    });
  };
  await beat().catch(() => undefined);
  const timer = setInterval(() => {
    beat().catch((error) => logger.warn('heartbeat to redis failed', errorFields(error)));
  }, HEARTBEAT_INTERVAL_MS);
  return {
    stop: () => clearInterval(timer),
    leave: () => registry.remove(workerId).catch(() => undefined),
  };
}
