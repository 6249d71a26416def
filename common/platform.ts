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
  const redis = connectRedis(env, logger, clientId);
  const kafkaCheck = kafkaProbe(kafka, env);
  const probes: Record<ProbeName, Probe> = {
    kafka: kafkaCheck.probe,
    clickhouse: clickhouseProbe(clickhouse, env),
    redis: redisProbe(redis, env),
    stream_workers: streamWorkersProbe(redis, env),
  };

  return {
    env,
    logger,
    kafka,
    clickhouse,
    redis,
    keys: createKeyStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS, logger),
    topic: (name) => topicName(env.KAFKA_TOPIC_PREFIX, name),
    health: createHealthCheck(probes, { logger: logger.child({ check: 'healthz' }) }),
    readiness: (components) =>
      createHealthCheck(Object.fromEntries(components.map((name) => [name, probes[name]]))),
    async close() {
      await kafkaCheck.close();
      await clickhouse.close().catch(() => undefined);
      redis.disconnect();
    },
  };
}

/** The Redis client, its memory reported, each distinct connection error logged once in a row. */
function connectRedis(env: BaseEnv, logger: Logger, clientId: string): Redis {
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
  return redis;
}

/** Kafka's probe, on an admin client connected at its first use (and disconnected by close). */
function kafkaProbe(kafka: Kafka, env: BaseEnv): { probe: Probe; close(): Promise<void> } {
  let admin: Admin | undefined;
  const probe: Probe = async () => {
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
  const close = async () => {
    await admin?.disconnect().catch(() => undefined);
  };
  return { probe, close };
}

function clickhouseProbe(clickhouse: ClickHouseClient, env: BaseEnv): Probe {
  return async () => {
    const result = await clickhouse.ping();
    if (!result.success) throw result.error;
    if (env.CLICKHOUSE_NODES.length < 2) return;
    const nodesDown = await clickhouseNodesDown(env.CLICKHOUSE_NODES);
    if (nodesDown.length)
      throw new ComponentDownError(`shard ${nodesDown.map((n) => n.node).join(', ')} down`, nodesDown);
    return { shards: env.CLICKHOUSE_NODES.length };
  };
}

/** Redis's probe: its memory against the ceiling, and with a cluster its state and nodes. */
function redisProbe(redis: Redis, env: BaseEnv): Probe {
  const seeds = env.REDIS_CLUSTER_NODES;
  const down = async (error: unknown, clusterNodes?: string) =>
    new ComponentDownError(
      error instanceof Error ? error.message : String(error),
      seeds.length ? await redisNodesDown(seeds, clusterNodes) : [],
    );
  return async () => {
    const info = await redis
      .info('memory')
      .catch(async (error: unknown) => Promise.reject(await down(error)));
    const memory = redisMemory(info, env.REDIS_MEMORY_DEGRADED_RATIO);
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
  };
}

/**
 * How close Redis is to its ceiling (noeviction: at maxmemory every write fails), from INFO memory:
 * the figures, or an error above `ratio` of maxmemory.
 */
function redisMemory(info: string, ratio: number): { used_memory_mb: number; maxmemory_mb: number } {
  const bytes = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  const used = bytes('used_memory');
  const max = bytes('maxmemory');
  const mb = (n: number) => Math.round(n / 1048576);
  const memory = { used_memory_mb: mb(used), maxmemory_mb: mb(max) };
  if (max > 0 && used / max > ratio) {
    throw new Error(
      `used_memory ${memory.used_memory_mb} MB is ${Math.round((100 * used) / max)} % of maxmemory ` +
        `${memory.maxmemory_mb} MB (degraded above ${Math.round(ratio * 100)} %): writes fail at the ceiling`,
    );
  }
  return memory;
}

function streamWorkersProbe(redis: Redis, env: BaseEnv): Probe {
  const workers = workerRegistry(redis, env.REDIS_KEY_PREFIX);
  return async () => {
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
