// Helpers of the cluster phase: the cluster-topology stack's nodes (kill by pid file, restart with
// the `npm run stack -- up` logic, wait until replicas are back in sync), steady ingest through the
// real API with every answer recorded, and the figures each fault prints.
import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { expect } from 'vitest';
import { startKafka } from '../../infra/local/kafka.mjs';
import { isAlive, readPid } from '../../infra/local/processes.mjs';
import { redisCommand, startRedis } from '../../infra/local/redis.mjs';
import { pidFile } from '../../infra/local/settings.mjs';
import { topicDefinitions } from '../../common/topics.ts';
import { api, createTestKey, env, eventually, sampleListing, testRedis } from './api.ts';
import { untilStopped } from './background.ts';
import { rows } from './stream.ts';
import { expectExactlyOnce } from './fault-stream.ts';
import { stackSettings as settings } from './fault-stack-settings.ts';
import { setTimeout as sleep } from 'node:timers/promises';
export { setTimeout as sleep } from 'node:timers/promises';

export { settings };

export function expectClusterStack(): void {
  expect(settings.topology, 'the cluster phase runs on RLS_TOPOLOGY=cluster').toBe('cluster');
  expect(env.KAFKA_BROKERS).toHaveLength(3);
}

/** SIGKILL of one node by its pid file, as an external suite would; resolves once it is gone. */
export async function killNode(component: 'kafka' | 'redis', n: number): Promise<number> {
  const pid = readPid(pidFile(settings, component, n));
  expect(isAlive(pid), `${component}-${n} runs before the kill`).toBe(true);
  process.kill(pid, 'SIGKILL');
  await eventually(async () => (isAlive(pid) ? undefined : true), 10_000, `${component}-${n} to exit`);
  return Date.now();
}

/** `npm run stack -- up` for one component: starts what is missing, leaves the rest alone. */
export async function restartMissing(component: 'kafka' | 'redis'): Promise<number> {
  const t0 = Date.now();
  const started = component === 'kafka' ? await startKafka(settings) : await startRedis(settings);
  expect(started.startedNodes.length, `${component}: one node restarted`).toBe(1);
  return Date.now() - t0;
}

function admin() {
  return new Kafka({
    clientId: 'rls-cluster-tests',
    brokers: env.KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
  }).admin();
}

/** The topics whose replicas must be in sync again before the next fault. */
function ourTopics(): string[] {
  return [
    ...Object.keys(topicDefinitions).map((name) => env.KAFKA_TOPIC_PREFIX + name),
    '__consumer_offsets',
  ];
}

/** Waits until every partition of our topics (and the offsets topic) has all its replicas in sync. */
export async function waitForFullIsr(timeoutMs = 120_000): Promise<number> {
  const t0 = Date.now();
  const client = admin();
  await client.connect();
  try {
    await eventually(
      async () => {
        const { topics } = await client.fetchTopicMetadata({ topics: ourTopics() });
        const behind = topics.flatMap((t) => t.partitions.filter((p) => p.isr.length < p.replicas.length));
        return behind.length === 0 ? true : undefined;
      },
      timeoutMs,
      'every partition back to full ISR',
    );
  } finally {
    await client.disconnect();
  }
  return Date.now() - t0;
}

/** The broker (node number) leading partition 0 of the listings topic. */
export async function listingsLeader(): Promise<number> {
  const client = admin();
  await client.connect();
  try {
    const { topics } = await client.fetchTopicMetadata({
      topics: [`${env.KAFKA_TOPIC_PREFIX}rls.listings.v1`],
    });
    return topics[0]!.partitions.find((p) => p.partitionId === 0)!.leader;
  } finally {
    await client.disconnect();
  }
}

/** /healthz (public body) until `check` accepts it; returns when. */
export async function healthUntil(
  check: (body: { status: string; down?: string[] }) => boolean,
  timeoutMs = 30_000,
) {
  await eventually(
    async () => {
      const r = await api('GET', '/healthz');
      return check(r.body) ? true : undefined;
    },
    timeoutMs,
    '/healthz to name the expected nodes',
  );
  return Date.now();
}

export interface Answer {
  sentAt: number;
  at: number;
  status: number;
  ids: string[];
}

/**
 * Steady ingest through the real API: `clients` loops posting `perRequest` listings each, a
 * pause between requests. Every answer is recorded; the ids of 201 answers are what the API
 * acknowledged and must be stored exactly once.
 */
export function steadyIngest(key: string, { clients = 2, perRequest = 50, pauseMs = 150 } = {}) {
  const answers: Answer[] = [];
  const post = async () => {
    const listings = Array.from({ length: perRequest }, () => sampleListing());
    const sentAt = Date.now();
    let status = 0;
    let ids: string[] = [];
    try {
      const r = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
      status = r.status;
      if (r.status === 201) ids = r.body.results.filter((x: any) => x.success).map((x: any) => x.listing_id);
    } catch {
      status = -1; // connection error: the API process itself is gone
    }
    answers.push({ sentAt, at: Date.now(), status, ids });
    await sleep(pauseMs);
  };
  const { stop } = untilStopped(post, () => answers, clients);
  return { answers, acknowledged: () => answers.flatMap((a) => a.ids), stop };
}

/**
 * The start of a fault test under steady ingest: the cluster stack is up with every replica in sync,
 * and an enterprise key whose rate limit the ingest never reaches.
 */
export async function clusterIngestKey(): Promise<string> {
  expectClusterStack();
  await waitForFullIsr();
  const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
  return key;
}

/**
 * What a fault under steady ingest must not break: the API acknowledged listings, never answered
 * 500, and every acknowledged listing is stored exactly once.
 */
export async function expectAcknowledgedStoredOnce(ingest: ReturnType<typeof steadyIngest>) {
  const acknowledged = ingest.acknowledged();
  const counts = statusCounts(ingest.answers);
  expect(acknowledged.length).toBeGreaterThan(0);
  expect(counts['500'] ?? 0, 'no 500 answers').toBe(0);
  await expectExactlyOnce(acknowledged, 240_000);
  return { acknowledged, counts };
}

/** Longest span of consecutive answers that were 503 (by answer time), in ms; 0 without any. */
export function longest503Window(answers: Answer[]): number {
  const sorted = [...answers].sort((a, b) => a.at - b.at);
  let longest = 0;
  let start: number | undefined;
  for (const a of sorted) {
    if (a.status === 503) {
      start ??= a.sentAt;
      longest = Math.max(longest, a.at - start);
    } else start = undefined;
  }
  return longest;
}

/** ms from `killedAt` until the first success answered for a request sent after it. */
export function recoveryAfter(
  answers: Answer[],
  killedAt: number,
  ok: (status: number) => boolean = (s) => s === 201,
): number {
  const first = answers.filter((a) => a.sentAt >= killedAt && ok(a.status)).sort((a, b) => a.at - b.at)[0];
  return first ? first.at - killedAt : Number.NaN;
}

/** Longest request among those in flight during [from, to]. */
export function slowestDuring(answers: Answer[], from: number, to: number): number {
  return Math.max(0, ...answers.filter((a) => a.at >= from && a.sentAt <= to).map((a) => a.at - a.sentAt));
}

/** Seconds from acknowledgement to `stored_at` (whole seconds), worst of the listings acknowledged in [from, to]. */
export async function worstFreshness(answers: Answer[], from: number, to: number): Promise<number> {
  const acked = answers.filter((a) => a.status === 201 && a.at >= from && a.at <= to && a.ids.length);
  let worst = 0;
  for (const a of acked) {
    const [r] = await rows<{ s: string }>(
      'SELECT toUnixTimestamp(max(stored_at)) AS s FROM listings WHERE listing_id IN {ids:Array(UUID)}',
      { ids: a.ids },
    );
    worst = Math.max(worst, Number(r!.s) - Math.floor(a.at / 1000));
  }
  return worst;
}

export function statusCounts(answers: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

/** Prints one fault's figures and appends them to <artifacts>/cluster-figures.jsonl. */
export function report(fault: string, figures: Record<string, unknown>): void {
  process.stdout.write(`[cluster figures] ${fault}: ${JSON.stringify(figures)}\n`);
  const dir = process.env.RLS_TEST_ARTIFACTS_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(path.join(dir, 'cluster-figures.jsonl'), `${JSON.stringify({ fault, ...figures })}\n`);
}

/** One RESP command to a Redis node (no client library: the node may be any role). */
export function redisNodeCommand(port: number, args: string[]): Promise<string> {
  return redisCommand(port, args, 3000);
}

/** Node numbers (1-6) of the current Redis masters, from any live node's CLUSTER NODES. */
export async function redisMasters(): Promise<number[]> {
  for (const port of settings.redis.ports) {
    const reply = await redisNodeCommand(port, ['CLUSTER', 'NODES']).catch(() => '');
    if (!reply) continue;
    return reply
      .split('\n')
      .filter((line) => / (myself,)?master /.test(line) && !/fail/.test(line.split(' ')[2] ?? ''))
      .map(
        (line) => settings.redis.ports.indexOf(Number(line.split(' ')[1]!.split('@')[0]!.split(':')[1])) + 1,
      )
      .filter((n) => n > 0);
  }
  throw new Error('no Redis node answers');
}

/** The master (node number) serving `key`'s slot, from CLUSTER KEYSLOT and CLUSTER SLOTS. */
export async function redisMasterOf(key: string): Promise<number> {
  const redis = await testRedis();
  const slot = Number(await redis.call('CLUSTER', 'KEYSLOT', key));
  const ranges = (await redis.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
  const range = ranges.find(([from, to]) => slot >= from && slot <= to);
  if (!range) throw new Error(`no master serves slot ${slot}`);
  const n = settings.redis.ports.indexOf(Number(range[2][1])) + 1;
  if (n < 1) throw new Error(`slot ${slot} is served by ${range[2].join(':')}, not a node of this stack`);
  return n;
}

/** Waits until every Redis node reports the cluster ok and every replica's link to its master is up. */
export async function waitForRedisCluster(timeoutMs = 60_000): Promise<number> {
  const t0 = Date.now();
  await eventually(
    async () => {
      for (const port of settings.redis.ports) {
        if (!(await redisNodeCommand(port, ['CLUSTER', 'INFO'])).includes('cluster_state:ok'))
          return undefined;
        const replication = await redisNodeCommand(port, ['INFO', 'replication']);
        if (replication.includes('role:slave') && !replication.includes('master_link_status:up'))
          return undefined;
      }
      return true;
    },
    timeoutMs,
    'the Redis Cluster ok with every replica in sync',
  );
  return Date.now() - t0;
}
