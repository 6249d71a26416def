import { createClient } from '@clickhouse/client';
import { createCellFacts } from '../analytics-api/geo/cell-facts.ts';
import { heatmapAnswer } from '../analytics-api/services/heatmap.ts';
const ch = createClient({ url: process.env.CLICKHOUSE_URL, database: 'rls_bench', username: process.env.CLICKHOUSE_USER, password: process.env.CLICKHOUSE_PASSWORD });
const bounds = { west: 39.0085954734401, south: -7.08588417266187, east: 39.55200452655989, north: -6.5463158273381294 };
const params = { bounds, period: { year: 2026, quarter: 3 } } as never;
const variants = { memory: { clickhouse: ch, cells: createCellFacts() } };
for (let round = 0; round < 8; round++) {
  for (const [name, deps] of Object.entries(variants)) {
    const c0 = process.cpuUsage(); const t0 = performance.now();
    for (let i = 0; i < 30; i++) await heatmapAnswer(deps, params, false);
    const c = process.cpuUsage(c0);
    console.log(`${name}: node CPU ${((c.user + c.system) / 30 / 1000).toFixed(2)} ms per Dar box answer, wall ${((performance.now() - t0) / 30).toFixed(1)} ms`);
  }
}
await ch.close();
