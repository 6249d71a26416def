// A stream worker SIGKILLed while a Kafka broker fails over (the leader of a listings partition
// SIGKILLed a second earlier): the surviving worker takes its partitions, replays from the last
// commit, and every 201 is stored exactly once with consistent aggregates.
import { afterAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/api.ts';
import { closeProducer } from '../support/stream.ts';
import {
  exited,
  expectAggregatesConsistent,
  reportedLag,
  spawnWorker,
  waitForPartitions,
} from '../support/fault-stream.ts';
import {
  clusterIngestKey,
  expectAcknowledgedStoredOnce,
  killNode,
  listingsLeader,
  report,
  restartMissing,
  sleep,
  steadyIngest,
  waitForFullIsr,
  worstFreshness,
} from '../support/cluster.ts';

afterAll(closeProducer);

describe('stream worker killed during a broker failover', () => {
  it('SIGKILL of a worker 1 s after the partition leader: every 201 stored exactly once', async () => {
    const key = await clusterIngestKey();
    const extra = spawnWorker('cluster-extra');
    const extraExited = exited(extra);
    await waitForPartitions('cluster-extra', 90_000);
    const ingest = steadyIngest(key);
    let killedAt = 0;
    let broker = 0;
    try {
      await sleep(3_000);
      broker = await listingsLeader();
      killedAt = await killNode('kafka', broker);
      await sleep(1_000);
      extra.kill('SIGKILL');
      expect((await extraExited).signal).toBe('SIGKILL');
      await sleep(7_000);
      await restartMissing('kafka');
      await waitForFullIsr();
      await sleep(2_000);
    } finally {
      await ingest.stop();
      if (extra.exitCode === null && extra.signalCode === null) extra.kill('SIGKILL');
    }
    const { acknowledged, counts } = await expectAcknowledgedStoredOnce(ingest);
    await expectAggregatesConsistent();
    const lagZeroAt = await eventually(
      async () => ((await reportedLag()) === 0 ? Date.now() : undefined),
      120_000,
      'lag 0',
    );
    report('stream worker SIGKILL during a broker failover', {
      broker_killed: `kafka-${broker}`,
      statuses: counts,
      acknowledged_listings: acknowledged.length,
      stored_exactly_once: acknowledged.length,
      worst_freshness_during_failover_s: await worstFreshness(ingest.answers, killedAt, killedAt + 10_000),
      lag_zero_after_kill_ms: lagZeroAt - killedAt,
    });
  }, 600_000);
});
