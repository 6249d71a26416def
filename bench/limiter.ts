// npm run bench:limiter — cost of the per-request auth check (key lookup + revocation + rate limit +
// usage counters, one Lua script round trip, common/auth/access-check.ts) from ONE process.
// Prints checks/s and client-side latency p50/p99 at concurrency 1 (pure round trip) and at
// BENCH_CONCURRENCY (default 64, pipelined on one connection, as a busy API process does), next to
// a bare PING at the same concurrency as the floor. Each key is an enterprise key with a limit high
// enough never to trip, so every check takes the full "allowed" path.
//
// Runs against the Redis of the environment (npm start's by default; RLS_PORT_BASE / REDIS_URL /
// RLS_NAMESPACE select another). Knobs: BENCH_SECONDS (5 per phase). Keys go under <prefix>bench:.
import { createKeyStore } from '../common/auth/key-store.ts';
import { MAX_CUSTOM_RATE_LIMIT } from '../common/auth/tiers.ts';
import { createRedis, redisReady, scanAll } from '../common/clients/redis.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64);
const ns = process.env.RLS_NAMESPACE;
const env = parseEnv(
  baseEnvSchema.pick({ REDIS_URL: true, REDIS_CLUSTER_NODES: true, REDIS_KEY_PREFIX: true }),
  {
    ...process.env,
    ...(ns && !process.env.REDIS_KEY_PREFIX ? { REDIS_KEY_PREFIX: `rls:${ns}:` } : {}),
  },
);
const prefix = `${env.REDIS_KEY_PREFIX}bench:`;

const redis = createRedis(
  { url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES },
  { name: 'bench-limiter' },
);
await redisReady(redis);
const store = createKeyStore(redis, prefix);
// Several keys, so the figure is not one hot hash; the limit is the highest a key may have.
const keys = await Promise.all(
  Array.from({ length: 16 }, () =>
    store.create({ mode: 'test', tier: 'enterprise', rateLimit: MAX_CUSTOM_RATE_LIMIT, name: 'bench' }),
  ),
);

async function phase(name: string, width: number, op: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let i = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const t0 = performance.now();
      await op(i++);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: width }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  const line = {
    phase: name,
    concurrency: width,
    ops: latencies.length,
    per_second: Math.round(latencies.length / elapsed),
    p50_ms: Number(pct(0.5).toFixed(3)),
    p99_ms: Number(pct(0.99).toFixed(3)),
  };
  process.stdout.write(JSON.stringify(line) + '\n');
  return line;
}

const check = async (i: number) => {
  const decision = await store.authorize(keys[i % keys.length]!.key, 'GET /bench');
  if (decision.outcome !== 'allowed') throw new Error(`unexpected ${decision.outcome}`);
};

try {
  await phase('warmup', concurrency, check);
  await phase('ping', 1, () => redis.ping());
  await phase('auth-check', 1, check);
  await phase('ping', concurrency, () => redis.ping());
  await phase('auth-check', concurrency, check);
} finally {
  // Remove what the bench created (its own prefix only).
  const keys = await scanAll(redis, `${prefix}*`);
  for (let i = 0; i < keys.length; i += 1_000) await redis.del(...keys.slice(i, i + 1_000));
  redis.disconnect();
}
