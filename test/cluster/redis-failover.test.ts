// SIGKILL of the Redis master that holds the service's keys, under rate-limited traffic through a
// gateway on the Redis Cluster. While its replica takes over, requests answer (slowly) or 503
// dependency_unavailable with Retry-After, never 500; no more requests are granted than the key's
// limit; and the gateway recovers by itself. Prints how long requests failed.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../common/auth/key-store.ts';
import { clusterKeyPrefix, createRedis, redisReady } from '../../common/clients/redis.ts';
import { startGateway, type ExtraGateway } from '../integration/auth-support.ts';
import { killNode, restartMissing } from './nodes.ts';

const nodes = (process.env.REDIS_CLUSTER_NODES ?? '').split(',').filter(Boolean);
// A namespace of its own: the keys of this test only, on whichever master holds its slot.
const prefix = clusterKeyPrefix(`rls:failover-${randomBytes(4).toString('hex')}:`);
const redis = createRedis({ url: 'redis://127.0.0.1', clusterNodes: nodes }, { name: 'failover-test' });
let gateway: ExtraGateway;

beforeAll(async () => {
  await redisReady(redis);
  gateway = await startGateway({ REDIS_CLUSTER_NODES: nodes.join(','), REDIS_KEY_PREFIX: prefix });
});
afterAll(async () => {
  await gateway?.stop();
  redis.disconnect();
  restartMissing();
});

/** The pid-file number of the master serving `prefix`: nodes are numbered from the lowest port. */
async function masterOf(key: string): Promise<{ n: number; port: number }> {
  const slot = Number(await redis.cluster('KEYSLOT', key));
  const shards = await redis.cluster('SLOTS');
  const port = shards.find(([from, to]) => slot >= from && slot <= to)![2]![1];
  const lines = String(await redis.cluster('NODES'))
    .trim()
    .split('\n');
  const ports = lines.map((line) => Number(/:(\d+)@/.exec(line)![1]));
  return { n: port - Math.min(...ports) + 1, port };
}

describe('Redis master SIGKILLed under rate-limited traffic', () => {
  it('answers 200, 429 or 503 with Retry-After (never 500), grants at most the limit, and recovers', async () => {
    expect(nodes.length, 'REDIS_CLUSTER_NODES must list the cluster nodes').toBeGreaterThan(0);
    const keys = createKeyStore(redis, prefix);
    const key = await keys.create({ mode: 'live', tier: 'free' });
    const limit = key.rate_limit;
    const path = `${gateway.baseUrl}/api/v1/listings/bulk`;
    const answers: { at: number; status: number; retryAfter: string | null; code?: string }[] = [];
    const start = Date.now();
    let stop = false;
    const loop = async () => {
      while (!stop) {
        const response = await fetch(path, { headers: { 'X-API-Key': key.key } });
        const body =
          response.status >= 500 ? ((await response.json()) as { error: { code: string } }) : undefined;
        if (!body) await response.arrayBuffer();
        answers.push({
          at: Date.now() - start,
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          code: body?.error.code,
        });
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const loops = [loop(), loop()];
    await new Promise((r) => setTimeout(r, 2_000));
    const master = await masterOf(`${prefix}key:h:x`);
    const killedAt = Date.now() - start;
    killNode('redis', master.n);
    console.log(`SIGKILLed redis-${master.n} (port ${master.port}) at ${killedAt} ms`);
    await new Promise((r) => setTimeout(r, 16_000));
    stop = true;
    await Promise.all(loops);

    const failed = answers.filter((a) => a.status >= 500);
    const after = answers.filter((a) => a.at > killedAt);
    const firstAnswerAfterKill = after.find((a) => a.status < 500);
    const slowest = Math.max(...answers.map((a, i) => (i ? a.at - answers[i - 1]!.at : 0)));
    console.log(
      `answers: ${answers.length} (${answers.filter((a) => a.status === 200).length} × 200, ` +
        `${answers.filter((a) => a.status === 429).length} × 429, ${failed.length} × 503); ` +
        `503 window: ${failed.length ? `${failed[0]!.at - killedAt}–${failed.at(-1)!.at - killedAt} ms after the kill` : 'none'}; ` +
        `longest gap between answers ${slowest} ms`,
    );
    for (const answer of answers) expect([200, 429, 503]).toContain(answer.status);
    for (const answer of failed) {
      expect(answer.code).toBe('dependency_unavailable');
      expect(answer.retryAfter).toBeTruthy();
    }
    // One fixed window: never more granted than the limit, even across the failover.
    expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(limit);
    // Recovered: the last answers are not failures, and a fresh key is served.
    expect(firstAnswerAfterKill).toBeDefined();
    expect(answers.at(-1)!.status).not.toBe(503);
    const fresh = await keys.create({ mode: 'live', tier: 'free' });
    expect((await fetch(path, { headers: { 'X-API-Key': fresh.key } })).status).toBe(200);
  });
});
