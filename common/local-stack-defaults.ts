// Development convenience: connection URLs left unset point at the local stack of `npm start`
// (infra/local/settings.mjs: the same ports, derived from RLS_PORT_BASE or the *_PORT variables),
// so a CLI run by hand finds it without configuration. Never in production: there an unset URL
// stops the process with the variable named (env.ts), instead of silently meaning 127.0.0.1.
// A copy of the port rules rather than an import, so the compiled services carry nothing of
// infra/local/; test/unit/env-production.test.ts keeps the two in step.
const LOCAL_START_PORT_BASE = 18_000;

function portOr(raw: string | undefined, fallback: number): number {
  return raw !== undefined && /^\d{1,5}$/.test(raw) ? Number(raw) : fallback;
}

export function localStackDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const base = portOr(env.RLS_PORT_BASE || undefined, LOCAL_START_PORT_BASE);
  const kafkaPort = portOr(env.KAFKA_PORT || undefined, base + 92);
  const redisPort = portOr(env.REDIS_PORT || undefined, base + 379);
  const clickhouseHttp = portOr(env.CLICKHOUSE_HTTP_PORT || undefined, base + 123);
  // RLS_TOPOLOGY=cluster: three brokers and a Redis Cluster of six nodes on consecutive ports (a
  // CLI run by hand beside `RLS_TOPOLOGY=cluster npm start` must use the Cluster client too).
  const nodes = (first: number, n: number) =>
    Array.from({ length: n }, (_, i) => `127.0.0.1:${first + i}`).join(',');
  const cluster = env.RLS_TOPOLOGY === 'cluster';
  // ClickHouse shard servers on consecutive HTTP ports (2 in the cluster topology).
  const shards = portOr(env.CLICKHOUSE_SHARDS || undefined, cluster ? 2 : 1);
  return {
    KAFKA_BROKERS: nodes(kafkaPort, cluster ? 3 : 1),
    CLICKHOUSE_URL: `http://127.0.0.1:${clickhouseHttp}`,
    // The local stack's user of the analytics API (infra/local/clickhouse-config.mjs); another
    // server (CLICKHOUSE_URL given) may not have it.
    ...(env.CLICKHOUSE_URL ? {} : { CLICKHOUSE_ANALYTICS_USER: 'rls_api' }),
    ...(shards > 1
      ? {
          CLICKHOUSE_NODES: Array.from(
            { length: shards },
            (_, i) => `http://127.0.0.1:${clickhouseHttp + i}`,
          ).join(','),
        }
      : {}),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    ...(cluster && !env.REDIS_URL ? { REDIS_CLUSTER_NODES: nodes(redisPort, 6) } : {}),
  };
}
