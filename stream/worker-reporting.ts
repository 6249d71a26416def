// What a worker process (stream worker or image process) reports about itself: it announces itself
// in the worker registry every few seconds with its consumers' partitions and lag, so /healthz on
// any API process can tell whether the pipeline behind it is alive (every tenth beat also logs the
// lag, for operators without access to /healthz), and serves /metrics and its health on its ops
// port (ops-server.ts).
import type { Redis } from 'ioredis';
import type { ListenerEnv } from '../common/env.ts';
import { errorFields, type Logger } from '../common/logger.ts';
import type { Platform } from '../common/platform.ts';
import { HEARTBEAT_INTERVAL_MS, workerRegistry } from '../common/worker-registry.ts';
import { startOpsServer } from './ops-server.ts';

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

async function startHeartbeat(options: {
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
  await beat().catch(() => undefined); // the interval below retries and logs
  const timer = setInterval(() => {
    beat().catch((error) => logger.warn('heartbeat to redis failed', errorFields(error)));
  }, HEARTBEAT_INTERVAL_MS);
  return {
    stop: () => clearInterval(timer),
    // A worker that cannot say it left ages out of the registry after its heartbeats stop.
    leave: () =>
      registry
        .remove(workerId)
        .catch((error) =>
          logger.warn('leaving the worker registry failed; the entry ages out', errorFields(error)),
        ),
  };
}

export interface WorkerReporting {
  /** Stops beating and closes the ops port, first thing on shutdown. */
  stop(): Promise<void>;
  /** Removes the worker from the registry, once its consumers have stopped. */
  leave(): Promise<void>;
}

export async function startWorkerReporting(options: {
  platform: Platform;
  env: ListenerEnv & { REDIS_KEY_PREFIX: string };
  workerId: string;
  role: string;
  consumers: Record<string, ReportingConsumer>;
  ops: { port: number; host: string };
  logger: Logger;
}): Promise<WorkerReporting> {
  const { platform, env, consumers, logger } = options;
  const heartbeat = await startHeartbeat({
    redis: platform.redis,
    prefix: env.REDIS_KEY_PREFIX,
    workerId: options.workerId,
    role: options.role,
    consumers,
    logger,
  });
  const ops = await startOpsServer({ ...options.ops, platform, consumers, env, logger });
  return {
    async stop() {
      heartbeat.stop();
      await ops.close();
    },
    leave: () => heartbeat.leave(),
  };
}
