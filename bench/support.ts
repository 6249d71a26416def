// What the whole-stack benchmarks share: clients of the environment's stack, the service processes
// (started here unless BENCH_BASE_URL points at running ones) and an enterprise key whose rate
// limit measures capacity rather than the limiter.
import type { ChildProcess } from 'node:child_process';
import type { Redis } from 'ioredis';
import { createKeyStore } from '../common/auth/key-store.ts';
import { createClickHouse } from '../common/clients/clickhouse.ts';
import { createRedis, redisReady } from '../common/clients/redis.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';
import { spawnService, stopChildren, waitForHealth } from '../infra/local/services.mjs';
import { stackProcesses, type TrackedProcess } from './process-stats.ts';

export const benchEnv = parseEnv(baseEnvSchema);
export const LOAD_GENERATOR = 'load generator (this process)';

/** Clients of the environment's Redis (ready to use) and ClickHouse, named `name` in Redis. */
export async function connectBenchStores(name: string) {
  const redis = createRedis(
    { url: benchEnv.REDIS_URL, clusterNodes: benchEnv.REDIS_CLUSTER_NODES },
    { name },
  );
  await redisReady(redis);
  const clickhouse = createClickHouse({
    url: benchEnv.CLICKHOUSE_URL,
    username: benchEnv.CLICKHOUSE_USER,
    password: benchEnv.CLICKHOUSE_PASSWORD,
    database: benchEnv.CLICKHOUSE_DATABASE,
  });
  return { redis, clickhouse };
}

/** A live enterprise key whose rate limit is far above what a benchmark sends. */
export function createBenchKey(redis: Redis, name: string) {
  return createKeyStore(redis, benchEnv.REDIS_KEY_PREFIX).create({
    mode: 'live',
    tier: 'enterprise',
    rateLimit: 1_000_000,
    name,
  });
}

/** `images: false` leaves the image process out (bench:guarantees' run without image checks). */
export async function startBenchStack(
  name: string,
  port: number,
  serviceEnv: NodeJS.ProcessEnv = {},
  { images = true } = {},
) {
  const { redis, clickhouse } = await connectBenchStores(name);
  const children: ChildProcess[] = [];
  // What the CPU tables account for: the services started here (none with BENCH_BASE_URL), the
  // stack's components, and this process as the load generator.
  const processes: TrackedProcess[] = [];
  let baseUrl = process.env.BENCH_BASE_URL;
  if (!baseUrl) {
    const env = { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...serviceEnv };
    children.push(spawnService('gateway', env), spawnService('stream', env));
    if (images) children.push(spawnService('images', env));
    processes.push(
      { name: 'gateway (API)', pid: children[0]!.pid! },
      { name: 'stream worker', pid: children[1]!.pid! },
      ...(images ? [{ name: 'image process', pid: children[2]!.pid! }] : []),
    );
    // Not healthy (a full Redis, a port taken): stop what was started, or it outlives the benchmark
    // and holds its ports for the next one.
    await waitForHealth(port, { children, timeoutMs: 120_000 }).catch(async (error: unknown) => {
      await stopChildren(children);
      throw error;
    });
    baseUrl = `http://127.0.0.1:${port}`;
  }
  const key = await createBenchKey(redis, name);
  processes.push(...stackProcesses(), { name: LOAD_GENERATOR, pid: process.pid });
  return {
    redis,
    clickhouse,
    baseUrl,
    processes,
    key,
    async close() {
      await stopChildren(children);
      await clickhouse.close();
      redis.disconnect();
    },
  };
}
