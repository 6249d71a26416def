// The stream stores every accepted listing exactly once through worker crashes between insert and
// commit, a ClickHouse outage, and rebalances with two workers. Runs in the serial fault phase: it
// kills workers and stops ClickHouse of the stack npm test started.
import { afterAll, describe, expect, it } from 'vitest';
import { startClickHouse, stopClickHouse } from '../../infra/local/clickhouse.mjs';
import { api, createTestKey, eventually } from '../support/api.ts';
import { untilStopped } from '../support/background.ts';
import { closeProducer, createListings, rows } from '../support/stream.ts';
import {
  exited,
  expectAggregatesConsistent,
  expectExactlyOnce,
  reportedLag,
  spawnWorker,
  waitForPartitions,
} from '../support/fault-stream.ts';
import { stackSettings as settings } from '../support/fault-stack-settings.ts';
import { setTimeout as sleep } from 'node:timers/promises';

afterAll(closeProducer);

/** Posts listings in the background until stopped; returns the accepted ids. */
function ingestInBackground(key: string, perRequest = 50, pauseMs = 200) {
  const ids: string[] = [];
  const post = async () => {
    ids.push(...(await createListings(key, perRequest).catch(() => [])));
    await sleep(pauseMs);
  };
  return { ids, stop: untilStopped(post, () => ids).stop };
}

describe('stream faults', () => {
  it('SIGKILL between insert and commit: after the restart every accepted listing is stored exactly once', async () => {
    const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const crashing = spawnWorker('crash-after-insert', { STREAM_CRASH_AFTER_INSERT: '1' });
    const crashed = exited(crashing);
    await waitForPartitions('crash-after-insert');
    const ids = await createListings(key, 600);
    expect(ids.length).toBe(600);
    // The hook kills the worker right after its first successful insert, before the commit.
    expect((await crashed).signal).toBe('SIGKILL');
    // Its partitions go to the worker that keeps running (after the session timeout), which
    // replays the uncommitted range; then a restarted worker joins again.
    const restarted = spawnWorker('restarted');
    try {
      await waitForPartitions('restarted', 90_000);
      await expectExactlyOnce(ids);
      await expectAggregatesConsistent();
    } finally {
      restarted.kill('SIGTERM');
      await exited(restarted);
    }
  }, 300_000);

  it('ClickHouse stopped for 30 s during ingest: no loss, no duplicates, nothing quarantined, lag recovers', async () => {
    const { key, account_id } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const ingest = ingestInBackground(key);
    await sleep(2_000);
    await stopClickHouse(settings);
    try {
      await sleep(30_000);
    } finally {
      await startClickHouse(settings);
    }
    await sleep(2_000);
    const ids = await ingest.stop();
    expect(ids.length).toBeGreaterThan(0);
    await expectExactlyOnce(ids, 180_000);
    const [quarantined] = await rows<{ c: string }>(
      'SELECT count() AS c FROM quarantine WHERE position(payload, {account:String}) > 0',
      { account: account_id },
    );
    expect(Number(quarantined!.c)).toBe(0);
    await eventually(async () => ((await reportedLag()) === 0 ? true : undefined), 60_000, 'lag 0');
    const health = await eventually(async () => {
      const r = await api('GET', '/healthz', {
        headers: { 'X-Operator-Token': process.env.OPERATOR_TOKEN ?? '' },
      });
      return r.status === 200 ? r.body : undefined;
    }, 60_000);
    expect(health.components.stream_workers.status).toBe('ok');
    await expectAggregatesConsistent();
  }, 300_000);

  it('two workers and rebalances (join, leave) during ingest: no loss, no duplicates', async () => {
    const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const ingest = ingestInBackground(key);
    await sleep(1_000);
    const second = spawnWorker('second');
    await waitForPartitions('second', 90_000);
    await sleep(3_000);
    second.kill('SIGTERM'); // graceful: drains, commits, leaves → another rebalance
    expect((await exited(second)).code).toBe(0);
    await sleep(2_000);
    const ids = await ingest.stop();
    expect(ids.length).toBeGreaterThan(0);
    await expectExactlyOnce(ids, 120_000);
    await expectAggregatesConsistent();
  }, 300_000);
});
