// A shard dies during ingest (docs/scaling.md, "ClickHouse shards"): SIGKILL of clickhouse-2 by its pid
// file. The analytics answer 503 dependency_unavailable while it is down (never a figure from one
// shard), the stream holds the rows it cannot store, and once the shard is back every acknowledged
// listing is stored exactly once, its aggregates too.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clickhouseNodes, clickhousePidFiles, startClickHouseNode } from '../../infra/local/clickhouse.mjs';
import { readSettings } from '../../infra/local/settings.mjs';
import { createClickHouse, queryRows } from '../../common/clients/clickhouse.ts';
import { api, createTestKey, env, eventually, sampleListing } from '../support/api.ts';
import { untilStopped } from '../support/background.ts';
import { rows } from '../support/stream.ts';
import { expectExactlyOnce } from '../support/fault-stream.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const nodes = clickhouseNodes(settings);

function ingestInBackground(key: string) {
  const ids: string[] = [];
  const statuses = new Map<number, number>();
  const post = async () => {
    const listings = Array.from({ length: 50 }, () => sampleListing());
    const response = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } }).catch(
      (error: unknown) => ({ status: 0, body: String(error) }),
    );
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status === 201)
      for (const r of response.body.results) if (r.success) ids.push(r.listing_id as string);
    await sleep(200);
  };
  return untilStopped(post, () => {
    console.log(`bulk answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`);
    return ids;
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.runIf(nodes.length >= 2)('a ClickHouse shard killed during ingest (fault)', () => {
  it('analytics answer 503 while clickhouse-2 is down; after its restart every acknowledged listing is stored once', async () => {
    const pidFile = clickhousePidFiles(settings)[1]!;
    expect(path.basename(pidFile)).toBe('clickhouse-2.pid');
    const { key, account_id } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const pricing = '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment';
    expect((await api('GET', pricing, { key })).status).toBe(200);

    const ingest = ingestInBackground(key);
    await sleep(3_000);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGKILL');
    await eventually(async () => (alive(pid) ? undefined : true), 10_000, 'clickhouse-2 to be gone');
    try {
      // A different query each time (the answer cache must not serve a figure from before).
      const refused = await eventually(
        async () => {
          const answer = await api('GET', `${pricing}&period=2025-Q${1 + Math.floor(Math.random() * 4)}`, {
            key,
          });
          return answer.status === 503 ? answer : undefined;
        },
        20_000,
        'a 503 from the analytics',
      );
      expect(refused.body.error).toMatchObject({
        code: 'dependency_unavailable',
        retriable: true,
        details: { component: 'clickhouse' },
      });
      // /healthz says which node: the component is down (a shard has no stand-in).
      const health = await eventually(
        async () => {
          const answer = await api('GET', '/healthz');
          return answer.status === 503 && answer.body.down?.includes('clickhouse-2')
            ? answer.body
            : undefined;
        },
        20_000,
        '/healthz to name clickhouse-2',
      );
      expect(health.status).toBe('unavailable');
      for (let i = 0; i < 3; i++) {
        const answer = await api(
          'GET',
          `/api/v1/analytics/heatmap?bounds=38.9,-7.1,39.6,-6.5&period=2024-Q${1 + i}`,
          { key },
        );
        expect(answer.status).toBe(503);
      }
      await sleep(8_000); // ingest goes on meanwhile: the API acknowledges, the stream waits
    } finally {
      await startClickHouseNode(settings, 2);
    }
    await sleep(3_000);
    const ids = await ingest.stop();
    expect(ids.length).toBeGreaterThan(100);
    await expectExactlyOnce(ids, 180_000);

    // The rows of both shards, each listing on one; the aggregates of its views count each once.
    const split = [];
    for (const node of nodes) {
      const shard = createClickHouse({
        url: node.url,
        username: 'default',
        password: '',
        database: env.CLICKHOUSE_DATABASE,
      });
      const [local] = await queryRows<{ n: string }>(
        shard,
        'SELECT count() AS n FROM listings_local WHERE account_id = {account:String}',
        { account: account_id },
      );
      split.push(Number(local!.n));
      await shard.close();
    }
    console.log(`acknowledged ${ids.length}; stored per shard ${split.join(' / ')}`);
    expect(split.reduce((a, b) => a + b, 0)).toBe(ids.length);
    expect(split.every((n) => n > 0)).toBe(true);
    const [stock] = await rows<{ n: string }>(
      'SELECT sum(listings) AS n FROM account_area_stock WHERE account_id = {account:String}',
      { account: account_id },
    );
    expect(Number(stock!.n)).toBe(ids.length);
    const [quarantined] = await rows<{ c: string }>(
      'SELECT count() AS c FROM quarantine WHERE position(payload, {account:String}) > 0',
      { account: account_id },
    );
    expect(Number(quarantined!.c)).toBe(0);
    expect((await api('GET', pricing, { key })).status).toBe(200);
    await eventually(
      async () => ((await api('GET', '/healthz')).status === 200 ? true : undefined),
      60_000,
      'healthy again',
    );
  }, 300_000);
});
