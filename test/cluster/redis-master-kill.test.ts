// A Redis Cluster master SIGKILLed during ingest and rate-limited traffic: its replica takes over,
// requests answer 503 with Retry-After meanwhile (never 500), a rate limit never admits more than
// its count, /healthz names the dead node, every 201 is stored exactly once, and the restarted
// node rejoins as a replica.
import { afterAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import { usageKeys } from '../../common/usage/keys.ts';
import { api, createTestKey, env } from '../support/api.ts';
import { untilStopped } from '../support/background.ts';
import { closeProducer } from '../support/stream.ts';
import { expectExactlyOnce } from '../support/fault-stream.ts';
import {
  expectClusterStack,
  healthUntil,
  killNode,
  longest503Window,
  recoveryAfter,
  redisMasterOf,
  redisMasters,
  report,
  restartMissing,
  sleep,
  statusCounts,
  steadyIngest,
  waitForRedisCluster,
  type Answer,
} from '../support/cluster.ts';

afterAll(closeProducer);

/** Requests of a key limited to `limit` per minute, `perSecond` a second, until stopped. */
function limitedTraffic(key: string, perSecond: number) {
  const answers: (Answer & { retryAfter: string | null })[] = [];
  const request = async () => {
    const sentAt = Date.now();
    const r = await api('GET', `/api/v1/listings/batches/${crypto.randomUUID()}`, { key }).catch(
      () => undefined,
    );
    answers.push({
      sentAt,
      at: Date.now(),
      status: r?.status ?? -1,
      ids: [],
      retryAfter: r?.headers.get('retry-after') ?? null,
    });
    await sleep(Math.max(0, sentAt + 1000 / perSecond - Date.now()));
  };
  return { answers, stop: untilStopped(request, () => answers).stop };
}

describe('Redis Cluster: a master killed during ingest and rate-limited traffic', () => {
  it('SIGKILL of the master holding a rate limit: 503 + Retry-After meanwhile, limit exact, 201s stored once', async () => {
    expectClusterStack();
    await waitForRedisCluster();
    const ingestKey = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const limited = await createTestKey({ tier: 'business' }); // 60 requests per minute
    const ingest = steadyIngest(ingestKey.key);
    const traffic = limitedTraffic(limited.key, 4);
    let killedAt = 0;
    let master = 0;
    try {
      await sleep(4_000);
      // The key's rate-limit counter (common/auth/access-check.ts), under the services' key prefix.
      master = await redisMasterOf(usageKeys(env.REDIS_KEY_PREFIX, hashApiKey(limited.key)).rateWindow);
      killedAt = await killNode('redis', master);
      await healthUntil((b) => (b.down ?? []).includes(`redis-${master}`));
      // Its replica is promoted after cluster-node-timeout (3 s) plus the election.
      const promotedAt = await (async () => {
        for (;;) {
          const masters = await redisMasters().catch((): number[] => []);
          if (masters.length === 3 && !masters.includes(master)) return Date.now();
          await sleep(200);
        }
      })();
      report('redis master failover', {
        killed: `redis-${master}`,
        replica_promoted_ms: promotedAt - killedAt,
      });
      // 100 limited requests in all, within the key's one-minute window.
      while (traffic.answers.length < 100) await sleep(250);
    } finally {
      await traffic.stop();
      await ingest.stop();
    }
    const restartMs = await restartMissing('redis');
    const syncMs = await waitForRedisCluster();
    await healthUntil((b) => !(b.down ?? []).includes(`redis-${master}`));

    const limitedCounts = statusCounts(traffic.answers);
    const ingestCounts = statusCounts(ingest.answers);
    expect(limitedCounts['500'] ?? 0, 'no 500 on rate-limited traffic').toBe(0);
    expect(ingestCounts['500'] ?? 0, 'no 500 on ingest').toBe(0);
    for (const a of [...traffic.answers].filter((x) => x.status === 503))
      expect(Number(a.retryAfter), '503 carries Retry-After').toBeGreaterThan(0);
    // Admitted = got past the limiter (the batch does not exist: 404).
    const admitted = limitedCounts['404'] ?? 0;
    const unavailable = limitedCounts['503'] ?? 0;
    expect(admitted, 'never more than the limit').toBeLessThanOrEqual(60);
    expect(
      admitted + unavailable,
      'the limit is granted, apart from requests that failed',
    ).toBeGreaterThanOrEqual(60);
    // Every limited request was admitted (404), refused by the limit (429) or unavailable (503).
    const refused = limitedCounts['429'] ?? 0;
    expect(admitted + refused + unavailable, 'no answer but 404, 429 or 503').toBe(traffic.answers.length);

    // Ingest: each request was accepted whole (201, its 50 listings acknowledged) or unavailable.
    const acknowledged = ingest.acknowledged();
    const accepted = ingestCounts['201'] ?? 0;
    expect(accepted + (ingestCounts['503'] ?? 0), 'no ingest answer but 201 or 503').toBe(
      ingest.answers.length,
    );
    expect(acknowledged.length).toBe(accepted * 50);
    expect(accepted, 'ingest goes on before and after the failover').toBeGreaterThanOrEqual(10);
    await expectExactlyOnce(acknowledged, 240_000);
    report('redis master SIGKILL during ingest and rate-limited traffic', {
      killed: `redis-${master}`,
      limited_requests: traffic.answers.length,
      limited_statuses: limitedCounts,
      first_admitted_after_kill_ms: recoveryAfter(traffic.answers, killedAt, (s) => s === 404 || s === 429),
      first_201_after_kill_ms: recoveryAfter(ingest.answers, killedAt),
      longest_503_window_ms: Math.max(longest503Window(traffic.answers), longest503Window(ingest.answers)),
      ingest_statuses: ingestCounts,
      acknowledged_listings: acknowledged.length,
      stored_exactly_once: acknowledged.length,
      restart_ms: restartMs,
      rejoined_and_synced_ms: syncMs,
    });
  }, 600_000);
});
