// The clients every process builds from its environment, with one close(). Each process's
// composition root (ingest/context.ts, analytics-api/context.ts, stream/pipelines.ts, …) starts
// from this.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import type { Admin, Kafka } from 'kafkajs';
import { createKeyStore, type KeyStore } from './auth/key-store.ts';
import { createClickHouse } from './clients/clickhouse.ts';
import { createKafka } from './clients/kafka.ts';
import { createRedis, redisReady } from './clients/redis.ts';
import type { BaseEnv } from './env.ts';
import { createHealthCheck, type HealthCheck, type Probe } from './health.ts';
import { clickhouseNodesDown, ComponentDownError, kafkaNodesDown, redisNodesDown } from './health-nodes.ts';
import type { Logger } from './logger.ts';
import { reportRedisMemory } from './metrics/redis-memory.ts';
import { webhookOutbox } from './webhooks/outbox.ts';
import { topicName, type TopicName } from './topics.ts';
import { workerRegistry } from './worker-registry.ts';

export interface Platform {
  env: BaseEnv;
  logger: Logger;
  kafka: Kafka;
  clickhouse: ClickHouseClient;
  redis: Redis;
  keys: KeyStore;
  topic(name: TopicName): string;
  /** Kafka, ClickHouse, Redis and the stream workers: the contract's /healthz. */
  health: HealthCheck;
  /** Only `components` (a process's own dependencies): /readyz. */
  readiness(components: ProbeName[]): HealthCheck;
  close(): Promise<void>;
}

export type ProbeName = 'kafka' | 'clickhouse' | 'redis' | 'stream_workers';

export function createPlatform(env: BaseEnv, logger: Logger, clientId: string): Platform {
  const kafka = createKafka(env.KAFKA_BROKERS, clientId, logger);
  const clickhouse = createClickHouse({
    url: env.CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    database: env.CLICKHOUSE_DATABASE,
  });
  const redis = createRedis(
    { url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES },
    { name: clientId },
  );
  reportRedisMemory(redis);
  let lastRedisError = '';
  redis.on('error', (error: Error) => {
    if (error.message !== lastRedisError) logger.warn('redis connection error', { error: error.message });
    lastRedisError = error.message;
  });
  redis.on('ready', () => (lastRedisError = ''));

  let admin: Admin | undefined;
  const kafkaProbe: Probe = async () => {
    if (!admin) {
      admin = kafka.admin();
      await admin.connect();
    }
    let cluster: Awaited<ReturnType<Admin['describeCluster']>>;
    try {
      cluster = await admin.describeCluster();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ComponentDownError(message, await kafkaNodesDown(env.KAFKA_BROKERS, undefined));
    }
    const nodesDown = await kafkaNodesDown(env.KAFKA_BROKERS, cluster.brokers);
    return { brokers: cluster.brokers.length, ...(nodesDown.length ? { nodes_down: nodesDown } : {}) };
  };
  const workers = workerRegistry(redis, env.REDIS_KEY_PREFIX);
  const probes: Record<ProbeName, Probe> = {
    kafka: kafkaProbe,
    clickhouse: async () => {
      const result = await clickhouse.ping();
      if (!result.success) throw result.error;
      if (env.CLICKHOUSE_NODES.length < 2) return;
      const nodesDown = await clickhouseNodesDown(env.CLICKHOUSE_NODES);
      if (nodesDown.length)
        throw new ComponentDownError(`shard ${nodesDown.map((n) => n.node).join(', ')} down`, nodesDown);
      return { shards: env.CLICKHOUSE_NODES.length };
    },
    redis: async () => {
      const seeds = env.REDIS_CLUSTER_NODES;
      const down = async (error: unknown, clusterNodes?: string) =>
        new ComponentDownError(
          error instanceof Error ? error.message : String(error),
          seeds.length ? await redisNodesDown(seeds, clusterNodes) : [],
        );
      // How close Redis is to its ceiling (noeviction: at maxmemory every write fails).
      const info = await redis
        .info('memory')
        .catch(async (error: unknown) => Promise.reject(await down(error)));
      const bytes = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
      const used = bytes('used_memory');
      const max = bytes('maxmemory');
      const mb = (n: number) => Math.round(n / 1048576);
      const memory = { used_memory_mb: mb(used), maxmemory_mb: mb(max) };
      const ratio = env.REDIS_MEMORY_DEGRADED_RATIO;
      if (max > 0 && used / max > ratio) {
        throw new Error(
          `used_memory ${memory.used_memory_mb} MB is ${Math.round((100 * used) / max)} % of maxmemory ` +
            `${memory.maxmemory_mb} MB (degraded above ${Math.round(ratio * 100)} %): writes fail at the ceiling`,
        );
      }
      if (!seeds.length) return memory;
      const [state, nodes] = (await Promise.all([
        redis.call('CLUSTER', 'INFO'),
        redis.call('CLUSTER', 'NODES'),
      ]).catch(async (error: unknown) => Promise.reject(await down(error)))) as [string, string];
      // Slots whose master is gone and not yet replaced: writes to them fail until a replica is promoted.
      if (!/^cluster_state:ok/m.test(String(state)))
        throw await down(new Error('Redis Cluster state is fail (slots without a master)'), String(nodes));
      const nodesDown = await redisNodesDown(seeds, String(nodes));
      return { ...memory, ...(nodesDown.length ? { nodes_down: nodesDown } : {}) };
    },
    stream_workers: async () => {
      const live = await workers.live();
      // Image processes (role `images`) report their consumer too, but photos do not hold up storage.
      const streams = live.filter((beat) => beat.role !== 'images');
      if (!streams.length) throw new Error('no stream worker has reported in the last 15 s');
      // Events waiting for their webhook deliveries (common/webhooks/outbox.ts): reported, never failing.
      const outbox = await webhookOutbox(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS).stats();
      return {
        workers: streams.length,
        image_processes: live.length - streams.length,
        consumers: summarizeLag(live),
        webhook_outbox: outbox,
      };
    },
  };

  return {
    env,
    logger,
    kafka,
    clickhouse,
    redis,
    keys: createKeyStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS),
    topic: (name) => topicName(env.KAFKA_TOPIC_PREFIX, name),
    health: createHealthCheck(probes, { logger: logger.child({ check: 'healthz' }) }),
    readiness: (components) =>
      createHealthCheck(Object.fromEntries(components.map((name) => [name, probes[name]]))),
    async close() {
      await admin?.disconnect().catch(() => undefined);
      await clickhouse.close().catch(() => undefined);
      redis.disconnect();
    },
  };
}

function summarizeLag(beats: Awaited<ReturnType<ReturnType<typeof workerRegistry>['live']>>) {
  const total: Record<string, { lag: number; partitions: number }> = {};
  for (const beat of beats) {
    for (const [consumer, info] of Object.entries(beat.consumers)) {
      const entry = (total[consumer] ??= { lag: 0, partitions: 0 });
      entry.partitions += info.partitions.length;
      entry.lag += Object.values(info.lag).reduce((sum, lag) => sum + lag, 0);
    }
  }
  return total;
}

/** Builds the platform and waits for Redis, which every request path needs. */
export async function startPlatform(env: BaseEnv, logger: Logger, clientId: string): Promise<Platform> {
  const platform = createPlatform(env, logger, clientId);
  await redisReady(platform.redis);
  return platform;
}
