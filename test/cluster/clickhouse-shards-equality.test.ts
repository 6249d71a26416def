// Every answer is the same on one ClickHouse server and on two shards (docs/scaling.md, "ClickHouse shards").
// The same fixtures go into two fresh databases of the cluster topology's servers: one migrated
// for a single server (plain tables on clickhouse-1 only), one migrated in its cluster form (each
// table sharded over clickhouse-1 and clickhouse-2, read through Distributed tables). A gateway
// runs against each, and every analytics endpoint and every SQL example of docs/warehouse.md (as the
// read-only `analyst`) must answer field by field the same.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { previousQuarter, quarterOf } from '../../analytics-api/period.ts';
import { createPricingLag } from '../../analytics-api/services/pricing-lag.ts';
import { pricingFigures, pricingScope } from '../../analytics-api/services/pricing.ts';
import { preparePriceSummaries, stalePriceGroups } from '../../common/warehouse/price-summaries.ts';
import { migrate } from '../../infra/clickhouse/migrate.ts';
import { clickhouseNodes, LOCAL_CLUSTER } from '../../infra/local/clickhouse.mjs';
import { spawnService, stopChildren } from '../../infra/local/services.mjs';
import { readSettings, repoRoot } from '../../infra/local/settings.mjs';
import { createTestKey, eventually } from '../support/api.ts';
import {
  buildFixtures,
  fixtureCities,
  fixtureTypes,
  loadFixtures,
} from '../support/cluster-clickhouse-fixtures.ts';

const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const nodes = clickhouseNodes(settings);
const analystPassword = process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst';
const suffix = `${process.pid}_${Date.now() % 100000}`;
const databases = { single: `rls_eq_single_${suffix}`, sharded: `rls_eq_sharded_${suffix}` } as const;
type Side = keyof typeof databases;
const ports: Record<Side, number> = { single: settings.port + 41, sharded: settings.port + 42 };

const children: ChildProcess[] = [];
let key = '';

function client(url: string, database: string, username = 'default', password = ''): ClickHouseClient {
  return createClickHouse({ url, username, password, database });
}

async function get(side: Side, pathAndQuery: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`http://127.0.0.1:${ports[side]}/api/v1${pathAndQuery}`, {
    headers: { 'X-API-Key': key },
  });
  return { status: response.status, body: await response.json() };
}

/**
 * The ```sql examples of docs/warehouse.md ("Examples") with their `-- params:` values, without a final LIMIT: the rows a
 * LIMIT keeps among ties of its ORDER BY are arbitrary on one server too, so the whole ordered
 * result is what must be the same.
 */
function warehouseExamples(): { sql: string; params: Record<string, string> }[] {
  const page = fs.readFileSync(path.join(repoRoot, 'docs/warehouse.md'), 'utf8');
  const start = page.indexOf('\n## Examples\n');
  if (start < 0) throw new Error('docs/warehouse.md has no "## Examples" section');
  const end = page.indexOf('\n## ', start + 4);
  const section = page.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => {
    const sql = match[1]!;
    const params = Object.fromEntries(
      [...(/^-- params: (.*)$/m.exec(sql)?.[1] ?? '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    const statement = sql
      .trim()
      .replace(/;\s*$/, '')
      .replace(/\n\s*LIMIT \d+$/i, '');
    return { sql: statement, params };
  });
}

/** Rows in a canonical order: ties of an ORDER BY may come in any order on one server too. */
const canonical = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();

describe.runIf(nodes.length >= 2)('ClickHouse on one server and on two shards', () => {
  beforeAll(async () => {
    const url = nodes[0]!.url;
    await migrate({ url, username: 'default', password: '', database: databases.single });
    await migrate({
      url,
      username: 'default',
      password: '',
      database: databases.sharded,
      cluster: { name: LOCAL_CLUSTER, nodes: nodes.map((node) => node.url), replicated: false },
    });
    const created = await createTestKey({ tier: 'enterprise', rateLimit: 10_000 });
    key = created.key;
    const fixtures = buildFixtures(created.account_id);
    for (const side of ['single', 'sharded'] as const) {
      const target = client(url, databases[side]);
      await loadFixtures(target, fixtures);
      await target.close();
      children.push(
        spawnService(
          'gateway',
          {
            PORT: String(ports[side]),
            CLICKHOUSE_DATABASE: databases[side],
            ANALYTICS_CACHE_TTL_SECONDS: '0', // both answers computed, never one cached for the other
            LOG_LEVEL: 'error',
          },
          { stdio: 'ignore' },
        ),
      );
    }
    for (const side of ['single', 'sharded'] as const)
      await eventually(
        async () =>
          (await fetch(`http://127.0.0.1:${ports[side]}/livez`).catch(() => undefined))?.ok
            ? true
            : undefined,
        60_000,
        `the ${side} gateway`,
      );
  }, 240_000);

  afterAll(async () => {
    await stopChildren(children);
    const admin = createClient({ url: nodes[0]!.url });
    for (const node of nodes) {
      const each = createClient({ url: node.url });
      for (const database of Object.values(databases))
        await each.command({
          query: 'DROP DATABASE IF EXISTS {db:Identifier} SYNC',
          query_params: { db: database },
        });
      await each.close();
    }
    await admin.close();
  }, 120_000);

  it('the rows are split over both shards, and each listing lives on one', async () => {
    const split: number[] = [];
    for (const node of nodes) {
      const each = client(node.url, databases.sharded);
      const result = await each.query({
        query: 'SELECT count() AS n FROM listings_local',
        format: 'JSONEachRow',
      });
      split.push(Number((await result.json<{ n: string }>())[0]!.n));
      await each.close();
    }
    console.log(`listings per shard: ${split.join(' / ')}`);
    expect(split.every((n) => n > 300)).toBe(true);
    expect(split.reduce((a, b) => a + b, 0)).toBe(1500);
  });

  const quarter = (date: Date, back: number) => {
    const q = Math.floor(date.getUTCMonth() / 3) - back;
    const year = date.getUTCFullYear() + Math.floor(q / 4);
    return `${year}-Q${(((q % 4) + 4) % 4) + 1}`;
  };
  const now = new Date();
  const requests: string[] = [];
  for (const city of fixtureCities)
    for (const type of fixtureTypes) {
      const scope = `city=${city}&type=${type}`;
      for (const back of [0, 1, 2]) {
        const period = quarter(now, back);
        requests.push(`/analytics/pricing?${scope}&period=${period}`);
        requests.push(`/analytics/velocity?${scope}&period=${period}`);
        requests.push(`/analytics/market-share?${scope}&period=${period}`);
      }
      requests.push(`/analytics/seasonality?${scope}&months=12`);
    }
  for (const back of [0, 1]) {
    requests.push(`/analytics/heatmap?bounds=38.9,-7.1,39.6,-6.5&period=${quarter(now, back)}`);
    requests.push(`/analytics/heatmap?bounds=36.5,-3.6,36.9,-3.2&type=house&period=${quarter(now, back)}`);
  }
  requests.push('/analytics/estimate?lat=-6.772&lng=39.288&type=apartment&bedrooms=2');
  requests.push('/analytics/estimate?lat=-3.367&lng=36.683&type=house');
  requests.push('/analytics/estimate?lat=-2.516&lng=32.9&type=apartment&bedrooms=1&area_sqm=60');

  it('every analytics endpoint answers the same on both', async () => {
    let ok = 0;
    let priced = 0;
    for (const request of requests) {
      const [single, sharded] = await Promise.all([get('single', request), get('sharded', request)]);
      expect(sharded, request).toEqual(single);
      if (single.status === 200) ok++;
      if (request.startsWith('/analytics/pricing'))
        priced += (single.body as { summary: { total_listings: number } }).summary.total_listings;
    }
    // The data reached the answers (equal empty answers would prove nothing).
    expect(priced).toBeGreaterThan(300);
    console.log(`analytics requests compared: ${requests.length} (${ok} with 200)`);
    expect(ok).toBeGreaterThan(requests.length / 2);
  }, 180_000);

  it('pricing from prepared summaries answers the same on both, summaries written through the shards', async () => {
    const clients = {
      single: client(nodes[0]!.url, databases.single),
      sharded: client(nodes[0]!.url, databases.sharded),
    };
    try {
      // The price-summaries job's work, on each side: every group is stale before, none after.
      for (const side of ['single', 'sharded'] as const) {
        const { rows: stale } = await stalePriceGroups.run(clients[side], {});
        expect(stale.length, side).toBeGreaterThan(5);
        await preparePriceSummaries(clients[side], stale);
        expect((await stalePriceGroups.run(clients[side], {})).rows, side).toEqual([]);
      }
      let compared = 0;
      for (const city of fixtureCities)
        for (const type of fixtureTypes)
          for (let period = quarterOf(now), back = 0; back < 3; back++, period = previousQuarter(period)) {
            const scope = pricingScope({ city, type, period }, false);
            const [single, sharded] = await Promise.all(
              (['single', 'sharded'] as const).map((side) =>
                pricingFigures({ clickhouse: clients[side], lag: createPricingLag() }, scope),
              ),
            );
            expect(single!.source, JSON.stringify(scope)).toBe('summaries');
            // Rows in any order (the answer sorts them).
            const ordered = (f: typeof single) => ({ ...f, prices: canonical(f!.prices) });
            expect(ordered(sharded), JSON.stringify(scope)).toEqual(ordered(single));
            compared += single!.prices.length;
          }
      expect(compared).toBeGreaterThan(30);
    } finally {
      await Promise.all(Object.values(clients).map((c) => c.close()));
    }
  }, 120_000);

  it("every SQL example of docs/warehouse.md answers the same as analyst, on either shard's server", async () => {
    const examples = warehouseExamples();
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const example of examples) {
      const answers = [];
      for (const [side, url] of [
        ['single', nodes[0]!.url],
        ['sharded', nodes[0]!.url],
        ['sharded', nodes[1]!.url],
      ] as const) {
        const analyst = client(url, databases[side], 'analyst', analystPassword);
        const result = await analyst.query({
          query: example.sql,
          query_params: example.params,
          format: 'JSONEachRow',
        });
        answers.push(canonical(await result.json()));
        await analyst.close();
      }
      expect(answers[1], example.sql).toEqual(answers[0]);
      expect(answers[2], example.sql).toEqual(answers[0]);
    }
  }, 120_000);
});
