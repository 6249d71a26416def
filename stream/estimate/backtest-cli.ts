// npm run backtest [-- --months N] [-- --as-of YYYY-MM]: runs the rent estimate's backtest once
// against the configured ClickHouse (CLICKHOUSE_URL, CLICKHOUSE_DATABASE), writes the run to
// estimate_accuracy (what the endpoint reads from then on) and prints the estimate's figures next
// to the naive baseline's. The stream worker runs the same backtest daily (ESTIMATE_BACKTEST_CRON).
import { parseArgs } from 'node:util';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { baseEnvSchema, parseEnv } from '../../common/env.ts';
import type { AccuracyFigures } from '../../common/estimate/accuracy.ts';
import { BACKTEST_REQUEST_TIMEOUT_MS, DEFAULT_BACKTEST_MONTHS, runBacktest } from './backtest.ts';

const { values } = parseArgs({
  options: { months: { type: 'string' }, 'as-of': { type: 'string' } },
});
const months = Number(values.months ?? DEFAULT_BACKTEST_MONTHS);
if (!Number.isInteger(months) || months < 1 || months > 24) {
  process.stderr.write('--months must be a whole number from 1 to 24\n');
  process.exit(2);
}
const asOfText = values['as-of'];
if (asOfText !== undefined && !/^\d{4}-(0[1-9]|1[0-2])$/.test(asOfText)) {
  process.stderr.write('--as-of must be a month YYYY-MM (the months before it are backtested)\n');
  process.exit(2);
}
const env = parseEnv(
  baseEnvSchema.pick({
    CLICKHOUSE_URL: true,
    CLICKHOUSE_USER: true,
    CLICKHOUSE_PASSWORD: true,
    CLICKHOUSE_DATABASE: true,
  }),
);
const client = createClickHouse({
  url: env.CLICKHOUSE_URL,
  username: env.CLICKHOUSE_USER,
  password: env.CLICKHOUSE_PASSWORD,
  database: env.CLICKHOUSE_DATABASE,
  requestTimeoutMs: BACKTEST_REQUEST_TIMEOUT_MS,
});

const pct = (v: number | null) => (v === null ? '     –' : `${(100 * v).toFixed(1).padStart(5)} %`);
const int = (v: number) => v.toLocaleString('en-US');

function print(mode: string, figures: AccuracyFigures[]) {
  const all = figures.find((f) => f.level === 'all');
  if (!all || all.subjects === 0) {
    console.log(`\n${mode}: no listings first listed in these months`);
    return;
  }
  console.log(
    `\n${mode}: ${int(all.subjects)} listings first listed in the months; the estimate found ≥ 5 ` +
      `comparables for ${int(all.n)} (${pct(all.n / all.subjects).trim()}), the baseline had a segment ` +
      `median for ${int(all.baseline_n)}`,
  );
  console.log(
    `${''.padEnd(34)}${'n'.padStart(11)}  median APE  within 10 %  within 20 %  interval coverage (target ${pct(all.interval_target).trim()})`,
  );
  const line = (name: string, f: AccuracyFigures) => {
    console.log(
      `${name.padEnd(34)}${int(f.n).padStart(11)}     ${pct(f.median_ape)}      ${pct(f.within_10pct)}      ${pct(f.within_20pct)}      ${pct(f.interval_coverage)}`,
    );
    console.log(
      `${'  naive baseline'.padEnd(34)}${int(f.baseline_n).padStart(11)}     ${pct(f.baseline_median_ape)}      ${pct(f.baseline_within_10pct)}      ${pct(f.baseline_within_20pct)}`,
    );
    console.log(
      `${'  both estimated (paired)'.padEnd(34)}${int(f.paired_n).padStart(11)}     ${pct(f.paired_median_ape)} vs baseline ${pct(f.paired_baseline_median_ape)}`,
    );
  };
  line('estimate, all listings', all);
  for (const f of figures.filter((x) => x.level === 'type').sort((a, b) => b.subjects - a.subjects)) {
    line(`estimate, ${f.property_type}`, f);
  }
}

const report = await runBacktest(client, {
  asOf: asOfText ? new Date(`${asOfText}-01T00:00:00Z`) : undefined,
  months,
  log: (line) => process.stderr.write(`[backtest] ${line}\n`),
});
console.log(
  `rent estimate backtest ${report.runId}: listings first listed ${report.fromMonth} … ${report.toMonth.slice(0, 7)} ` +
    `(${months} months, each estimated from listings before its month), ${report.seconds.toFixed(0)} s`,
);
print('live', report.live);
print('test', report.test);
await client.close();
