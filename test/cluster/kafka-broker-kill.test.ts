// Each Kafka broker in turn SIGKILLed during steady ingest through the real API and stream worker,
// then restarted by the `npm run stack -- up` logic: /healthz names the dead broker, and every
// listing the API acknowledged (201) is stored exactly once.
import { afterAll, describe, it } from 'vitest';
import { closeProducer } from '../support/stream.ts';
import {
  clusterIngestKey,
  expectAcknowledgedStoredOnce,
  healthUntil,
  killNode,
  longest503Window,
  recoveryAfter,
  report,
  restartMissing,
  sleep,
  slowestDuring,
  steadyIngest,
  waitForFullIsr,
  worstFreshness,
} from '../support/cluster.ts';

afterAll(closeProducer);

describe('Kafka cluster: a broker killed during ingest', () => {
  it('SIGKILL of each broker in turn, restarted: every 201 stored exactly once, the dead broker named', async () => {
    const key = await clusterIngestKey();
    const ingest = steadyIngest(key);
    const kills: { broker: number; killedAt: number; restartedAt: number }[] = [];
    try {
      await sleep(3_000);
      for (const broker of [1, 2, 3]) {
        const killedAt = await killNode('kafka', broker);
        const namedAt = await healthUntil((b) => (b.down ?? []).includes(`kafka-${broker}`));
        await sleep(Math.max(0, killedAt + 8_000 - Date.now())); // ingest goes on with two brokers
        const restartMs = await restartMissing('kafka');
        const isrMs = await waitForFullIsr();
        const restartedAt = Date.now();
        await healthUntil((b) => !(b.down ?? []).includes(`kafka-${broker}`));
        kills.push({ broker, killedAt, restartedAt });
        report(`kafka broker ${broker} SIGKILL`, {
          named_in_healthz_ms: namedAt - killedAt,
          first_201_after_kill_ms: recoveryAfter(ingest.answers, killedAt),
          slowest_request_during_failover_ms: slowestDuring(ingest.answers, killedAt, killedAt + 8_000),
          restart_ms: restartMs,
          back_in_sync_ms: isrMs,
        });
        await sleep(2_000);
      }
    } finally {
      await ingest.stop();
    }
    const { acknowledged, counts } = await expectAcknowledgedStoredOnce(ingest);
    const freshness = [];
    for (const k of kills)
      freshness.push(await worstFreshness(ingest.answers, k.killedAt, k.killedAt + 10_000));
    report('kafka brokers, all three kills', {
      requests: ingest.answers.length,
      statuses: counts,
      acknowledged_listings: acknowledged.length,
      stored_exactly_once: acknowledged.length,
      longest_503_window_ms: longest503Window(ingest.answers),
      worst_freshness_during_failover_s: freshness,
    });
  }, 600_000);
});
