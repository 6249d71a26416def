import { createClient } from '@clickhouse/client';
import { pricingSummaryStatement } from '../analytics-api/queries/pricing.ts';
import { benchClickHouse } from './clickhouse-server.ts';
const ch = createClient({ ...benchClickHouse, database: 'rls_bench' });
const scopes = ['apartment', 'house', 'studio', 'room', 'commercial', 'land'].flatMap((type) =>
  ['2026-07-01', '2026-04-01', '2026-01-01', '2025-10-01'].map((q, i, a) => ({
    isTest: 0,
    city: 'dar_es_salaam',
    type,
    quarterStart: q,
    previousStart: a[i + 1] ?? '2025-07-01',
  })),
);
const pct = (s: number[], p: number) =>
  s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(1);
const cpu = async () =>
  Number(
    (
      await (
        await ch.query({
          query:
            "SELECT sum(value) AS us FROM system.events WHERE event IN ('UserTimeMicroseconds','SystemTimeMicroseconds')",
          format: 'JSONEachRow',
        })
      ).json<{ us: string }>()
    )[0]!.us,
  );
async function time(name: string, sql: string, settings = {}) {
  const t: number[] = [];
  const c0 = await cpu();
  for (let r = 0; r < 5; r++)
    for (const s of scopes) {
      const t0 = performance.now();
      await (
        await ch.query({ query: sql, query_params: s, format: 'JSON', clickhouse_settings: settings })
      ).json();
      t.push(performance.now() - t0);
    }
  const c1 = await cpu();
  t.sort((a, b) => a - b);
  console.log(
    name.padEnd(30),
    'p50',
    pct(t, 50),
    'p90',
    pct(t, 90),
    'p99',
    pct(t, 99),
    'cpu',
    ((c1 - c0) / t.length / 1000).toFixed(2),
  );
}
const W =
  'WHERE is_test = {isTest:UInt8} AND city = {city:String} AND property_type = {type:String} AND quarter IN ({quarterStart:Date}, {previousStart:Date})';
const sumFinal = `SELECT quarter, city_wide AS k, neighbourhood, listings, median_price_tzs AS m, avg_price_tzs AS a, min_price_tzs AS lo, max_price_tzs AS hi, toUInt64(0) AS views FROM neighbourhood_quarter_price_summaries FINAL ${W}`;
const statsA = `SELECT quarter, toUInt8(city = {city:String}) + 2 AS k, if(city = {city:String}, neighbourhood, '') AS nb, sum(listings), NULL, NULL, NULL, NULL, sum(views) FROM neighbourhood_quarter_stats WHERE is_test = {isTest:UInt8} AND quarter IN ({quarterStart:Date}, {previousStart:Date}) AND property_type = {type:String} GROUP BY quarter, k, nb`;
for (let k = 0; k < 2; k++) {
  await time('V1 current', pricingSummaryStatement.sql);
  await time('V2 final + plain stats', `${sumFinal} UNION ALL ${statsA}`);
  await time('V3 = V2 max_threads 1', `${sumFinal} UNION ALL ${statsA}`, { max_threads: 1 });
  await time('summaries final alone', sumFinal);
  await time('stats plain alone', statsA);
}
await ch.close();
