// Redis memory against its ceiling, read from each master at scrape time: with `noeviction` every
// write fails once used_memory reaches maxmemory, so operators alert before that
// (infra/deploy/prometheus/alerts.yml, RedisMemoryNearMaxmemory).
import type { Cluster, Redis } from 'ioredis';
import { Gauge } from 'prom-client';
import { isCluster } from '../clients/redis.ts';
import { metricsRegistry } from './registry.ts';

interface NodeMemory {
  used: number;
  max: number;
}

let redisSource: Redis | undefined;
/** One read serves both gauges of a scrape. */
let recent: { at: number; read: Promise<Map<string, NodeMemory>> } | undefined;

function field(info: string, name: string): number {
  return Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

async function readMemory(redis: Redis): Promise<Map<string, NodeMemory>> {
  const nodes = isCluster(redis) ? (redis as unknown as Cluster).nodes('master') : [redis];
  const result = new Map<string, NodeMemory>();
  await Promise.all(
    nodes.map(async (node) => {
      const info = await node.info('memory');
      const name = `${node.options.host ?? 'redis'}:${node.options.port ?? 6379}`;
      result.set(name, { used: field(info, 'used_memory'), max: field(info, 'maxmemory') });
    }),
  );
  return result;
}

async function memory(): Promise<Map<string, NodeMemory>> {
  if (!redisSource) return new Map();
  if (!recent || Date.now() - recent.at > 1_000) {
    // A Redis that does not answer reports nothing (its own alerts say it is down), not a failed scrape.
    recent = { at: Date.now(), read: readMemory(redisSource).catch(() => new Map()) };
  }
  return recent.read;
}

function memoryGauge(name: string, help: string, pick: (m: NodeMemory) => number) {
  return new Gauge({
    name,
    help,
    labelNames: ['node'] as const,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      for (const [node, m] of await memory()) this.set({ node }, pick(m));
    },
  });
}

export const redisMemoryUsed = memoryGauge(
  'redis_memory_used_bytes',
  'Redis used_memory per master, read at scrape time',
  (m) => m.used,
);
export const redisMemoryMax = memoryGauge(
  'redis_memory_max_bytes',
  'Redis maxmemory per master (0: no ceiling), read at scrape time',
  (m) => m.max,
);

/** The process's Redis client, whose masters the gauges report. */
export function reportRedisMemory(redis: Redis): void {
  redisSource = redis;
}
