// What the whole-stack benchmarks share: clients of the environment's stack, the service processes
// (started here unless BENCH_BASE_URL points at running ones) and an enterprise key whose rate
// limit measures capacity rather than the limiter.
import type { ChildProcess } from 'node:child_process';
import { createKeyStore } from '../common/auth/key-store.ts';
import { createClickHouse } from '../common/clients/clickhouse.ts';
import { createRedis, redisReady } from '../common/clients/redis.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';
import { spawnService, stopChildren, waitForHealth } from '../infra/local/services.mjs';

export const benchEnv = parseEnv(baseEnvSchema);

export async function startBenchStack(name: string, port: number, serviceEnv: NodeJS.ProcessEnv = {}) {
  const redis = createRedis(benchEnv.REDIS_URL, { name });
  await redisReady(redis);
  const clickhouse = createClickHouse({
    url: benchEnv.CLICKHOUSE_URL,
    username: benchEnv.CLICKHOUSE_USER,
    password: benchEnv.CLICKHOUSE_PASSWORD,
    database: benchEnv.CLICKHOUSE_DATABASE,
  });
  const children: ChildProcess[] = [];
  let baseUrl = process.env.BENCH_BASE_URL;
  if (!baseUrl) {
    const env = { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', ...serviceEnv };
    children.push(spawnService('gateway', env), spawnService('stream', env));
    await waitForHealth(port, { children, timeoutMs: 120_000 });
    baseUrl = `http://127.0.0.1:${port}`;
  }
  const key = await createKeyStore(redis, benchEnv.REDIS_KEY_PREFIX).create({
    mode: 'live',
    tier: 'enterprise',
    rateLimit: 1_000_000,
    name,
  });
  return {
    redis,
    clickhouse,
    baseUrl,
    key,
    async close() {
      await stopChildren(children);
      await clickhouse.close();
      redis.disconnect();
    },
  };
}
