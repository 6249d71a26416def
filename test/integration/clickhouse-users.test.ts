// The local stack's ClickHouse users (infra/local/clickhouse-config.mjs): the analytics API reads as
// `rls_api`, with its own limit of concurrent queries; the data engineers' `analyst` has limits of
// its own (concurrent queries, memory, threads) that its queries cannot raise. Only for the local
// stack.
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import { afterAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../infra/local/settings.mjs';
import { api, createTestKey, env, testClickHouse } from '../support/api.ts';

const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const local = env.CLICKHOUSE_URL === `http://127.0.0.1:${settings.clickhouse.httpPort}`;

const clients: ClickHouseClient[] = [];
function clientAs(username: string, password: string): ClickHouseClient {
  const client = createClient({
    url: env.CLICKHOUSE_URL,
    username,
    password,
    database: env.CLICKHOUSE_DATABASE,
    log: { level: 127 as never },
  });
  clients.push(client);
  return client;
}
afterAll(() => Promise.all(clients.map((c) => c.close())));

const analyst = () => clientAs('analyst', process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst');
const apiUser = () => clientAs('rls_api', '');

async function one<T>(client: ClickHouseClient, query: string, querySettings: ClickHouseSettings = {}) {
  const result = await client.query({ query, format: 'JSONEachRow', clickhouse_settings: querySettings });
  return (await result.json<T>())[0]!;
}

const limitsQuery = `SELECT getSetting('max_threads') AS max_threads,
  getSetting('max_concurrent_queries_for_user') AS per_user,
  getSetting('max_memory_usage_for_user') AS memory_for_user,
  getSetting('readonly') AS readonly`;

describe.runIf(local)('ClickHouse users of the local stack', () => {
  it('happy: analyst still reads the service database, with its per-user limits in place', async () => {
    const client = analyst();
    const row = await one<{ n: string }>(client, 'SELECT count() AS n FROM listings');
    expect(Number(row.n)).toBeGreaterThanOrEqual(0);
    const limits = await one<Record<string, string | number>>(client, limitsQuery);
    expect(Number(limits.max_threads)).toBe(2);
    expect(Number(limits.per_user)).toBe(4);
    expect(Number(limits.memory_for_user)).toBe(3_000_000_000);
    expect(Number(limits.readonly)).toBe(2);
  });

  it('security: analyst cannot raise max_threads nor lift its per-user limits', async () => {
    const client = analyst();
    const attempts: ClickHouseSettings[] = [
      { max_threads: 8 },
      { max_concurrent_queries_for_user: '0' },
      { max_concurrent_queries_for_user: '100' },
      { max_memory_usage_for_user: '0' },
    ];
    for (const raised of attempts) {
      const error = await one(client, 'SELECT 1', raised).catch((e: unknown) => e);
      expect(error, JSON.stringify(raised)).toBeInstanceOf(Error);
      // SETTING_CONSTRAINT_VIOLATION
      expect(String((error as Error).message), JSON.stringify(raised)).toMatch(
        /Setting \w+ (should not|shouldn't) be (greater|less) than|Setting \w+ should not be changed/,
      );
    }
    // Lower is allowed.
    expect(await one<{ x: number }>(client, 'SELECT 1 AS x', { max_threads: 1 })).toEqual({ x: 1 });
  });

  it('security: rls_api reads only, with its own limit of concurrent queries that its queries cannot lift', async () => {
    const client = apiUser();
    const limits = await one<Record<string, string | number>>(client, limitsQuery);
    expect(Number(limits.per_user)).toBe(24);
    expect(Number(limits.readonly)).toBe(2);
    const lifted = await one(client, 'SELECT 1', { max_concurrent_queries_for_user: '0' }).catch(
      (e: unknown) => e,
    );
    expect(String(lifted)).toMatch(/should not be changed/);
    const write = await client
      .command({ query: 'CREATE TABLE api_user_probe (x UInt8) ENGINE = Memory' })
      .catch((e: unknown) => e);
    expect(String(write)).toMatch(/readonly|Not enough privileges/i);
  });

  it('happy: the analytics API queries ClickHouse as rls_api', async () => {
    // The server counts each user's queries under its quota (keyed by user name).
    const admin = testClickHouse();
    const usage = () =>
      one<{ start_time: string; query_selects: string } | undefined>(
        admin,
        `SELECT toString(start_time) AS start_time, toString(query_selects) AS query_selects
         FROM system.quotas_usage WHERE quota_key = 'rls_api'`,
      );
    const before = await usage();
    const { key } = await createTestKey();
    // A quarter nobody else asks for: a cache miss, so the API queries the warehouse.
    const period = `${1971 + Math.floor(Math.random() * 130)}-Q${1 + Math.floor(Math.random() * 4)}`;
    const response = await api('GET', `/api/v1/analytics/pricing?city=arusha&type=house&period=${period}`, {
      key,
    });
    expect(response.status).toBe(200);
    const after = await usage();
    expect(after).toBeDefined();
    // A new quota interval (on the hour) starts counting again.
    if (before && after!.start_time === before.start_time) {
      expect(Number(after!.query_selects)).toBeGreaterThan(Number(before.query_selects));
    }
  });
});
