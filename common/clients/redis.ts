// The one place a Redis connection is made: one node (REDIS_URL), or a Redis Cluster when
// REDIS_CLUSTER_NODES lists its nodes.
//
// Cluster key layout: every key the services write begins with REDIS_KEY_PREFIX, then a hash tag
// of its account, API key, listing bucket or global part (common/redis-keys/tags.ts), so the key
// space spreads over the masters while the keys one script or transaction touches share a slot.
import { Cluster, Redis } from 'ioredis';

export interface RedisTarget {
  url: string;
  /** host:port of some cluster nodes; empty for a single node. */
  clusterNodes?: string[];
}

/**
 * Redirections the cluster client follows per command before it fails. Each waits
 * `retryDelayOnFailover` when a node is unreachable, so together they outlast a replica's
 * promotion (~5 s after a master dies with cluster-node-timeout 3000): measured here, 16 × 200 ms
 * failed calls during a failover, 60 × 100 ms none.
 */
export const CLUSTER_MAX_REDIRECTIONS = 60;
const CLUSTER_RETRY_DELAY_MS = 100;

export function createRedis(target: string | RedisTarget, options: { name?: string } = {}): Redis {
  const { url, clusterNodes = [] } = typeof target === 'string' ? { url: target } : target;
  const connection = {
    connectionName: options.name,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
  };
  if (!clusterNodes.length) {
    return new Redis(url, {
      ...connection,
      // Fail fast when Redis is down: requests get a 503 instead of waiting on a queue.
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      lazyConnect: false,
    });
  }
  const credentials = new URL(url);
  const cluster = new Cluster(
    clusterNodes.map((node) => {
      const [host, port] = node.split(':');
      return { host, port: Number(port) };
    }),
    {
      // Fail fast when the whole cluster is unreachable, as for one node; a dead master is ridden
      // out by the redirections below instead.
      enableOfflineQueue: false,
      maxRedirections: CLUSTER_MAX_REDIRECTIONS,
      retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
      clusterRetryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      slotsRefreshTimeout: 2_000,
      redisOptions: {
        ...connection,
        username: credentials.username || undefined,
        password: credentials.password ? decodeURIComponent(credentials.password) : undefined,
        tls: credentials.protocol === 'rediss:' ? {} : undefined,
        maxRetriesPerRequest: 1,
      },
    },
  );
  // Both speak the same commands (ioredis' Commander); the code uses nothing a Cluster lacks
  // (scans go through scanAll, which visits every master).
  return cluster as unknown as Redis;
}

/** True for a Cluster client made by createRedis. */
export function isCluster(redis: Redis): boolean {
  return (redis as unknown as { isCluster?: boolean }).isCluster === true;
}

/** SCAN MATCH over every master (one node: that node). */
export async function scanAll(redis: Redis, pattern: string, count = 1_000): Promise<string[]> {
  const nodes = isCluster(redis) ? (redis as unknown as Cluster).nodes('master') : [redis];
  const keys: string[] = [];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, batch] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return keys;
}

/** Resolves once the connection is ready, or rejects after `timeoutMs`. */
export async function redisReady(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
