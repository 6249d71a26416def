// npm run rents:eval: the rent estimate on real rents (docs/analytics.md, "Real rents"). For each
// dataset fetched by rents:fetch: every listing before the evaluated month is loaded into an
// evaluation database of the configured ClickHouse, the backtest runs on the months before it (as
// the daily job would), and a sample of the month's new listings is estimated through the
// endpoint's own code (pointEstimateAnswer, as of the month's first day), next to the type's
// 90-day median, the plain median of the 15 nearest and a gradient-boosting model fit on the same
// listings. Prints one table per dataset.
import fs from 'node:fs';
import path from 'node:path';
import { accuracySource } from '../../analytics-api/services/estimate-accuracy.ts';
import { pointEstimateAnswer } from '../../analytics-api/services/estimate.ts';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { AppError } from '../../common/errors.ts';
import { BACKTEST_REQUEST_TIMEOUT_MS, runBacktest } from '../../stream/estimate/backtest.ts';
import { rentsEnv } from './env.ts';
import { gbmPredictions } from './gbm-reference.ts';
import { methodFigures, sample, type Prediction } from './figures.ts';
import { nearestMedian, typeMedian } from './references.ts';
import { parseCsv, type RentRow } from './shape.ts';
import { EVAL_DATABASE, loadListings, resetEvalDatabase } from './warehouse.ts';

const connection = {
  url: rentsEnv.CLICKHOUSE_URL,
  username: rentsEnv.CLICKHOUSE_USER,
  password: rentsEnv.CLICKHOUSE_PASSWORD,
  requestTimeoutMs: BACKTEST_REQUEST_TIMEOUT_MS,
};
const admin = createClickHouse({ ...connection, database: rentsEnv.CLICKHOUSE_DATABASE });
const client = createClickHouse({ ...connection, database: EVAL_DATABASE });
const log = (line: string) => process.stderr.write(`[rents] ${line}\n`);

const monthStart = (text: string) => Date.parse(`${text}-01T00:00:00Z`) / 1000;
const monthOf = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 7);

/** Our estimate through the endpoint's code, as of `origin`; NaN where it has too few comparables. */
async function ours(subject: RentRow, origin: number): Promise<Prediction> {
  try {
    const answer = await pointEstimateAnswer(
      { clickhouse: client, accuracy: accuracy!, usdTzs: 1 },
      {
        type: subject.type,
        latitude: subject.latitude,
        longitude: subject.longitude,
        bedrooms: subject.bedrooms,
        bathrooms: subject.bathrooms,
        areaSqm: subject.areaSqm,
        // "USD" at a rate of 1: amounts are quoted in whole units of the dataset's currency.
        currency: 'USD',
      },
      false,
      'rents-eval',
      new Date(origin * 1000),
    );
    const { rent, low, high, interval_calibrated } = answer.estimate;
    return { actual: subject.rent, estimate: rent, ...(interval_calibrated ? { low, high } : {}) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'insufficient_comparables') {
      return { actual: subject.rent, estimate: NaN };
    }
    throw error;
  }
}
let accuracy: ReturnType<typeof accuracySource> | undefined;

const pct = (v: number | null) => (v === null ? '—' : `${(100 * v).toFixed(1)} %`);

async function evaluate(name: string, rows: RentRow[]): Promise<void> {
  const last = rows.reduce((m, r) => Math.max(m, r.listedAt), 0);
  const origin = monthStart(rentsEnv.RENTS_EVAL_MONTH ?? monthOf(last));
  const end =
    Date.UTC(new Date(origin * 1000).getUTCFullYear(), new Date(origin * 1000).getUTCMonth() + 1, 1) / 1000;
  const train = rows.filter((r) => r.listedAt < origin);
  const subjects = sample(
    rows.filter((r) => r.listedAt >= origin && r.listedAt < end),
    rentsEnv.RENTS_EVAL_SAMPLE,
  );
  log(
    `${name}: ${train.length} listings before ${monthOf(origin)}, ${subjects.length} of its new listings estimated`,
  );
  await resetEvalDatabase(admin, rentsEnv.CLICKHOUSE_DATABASE);
  await loadListings(client, name, train);
  const report = await runBacktest(client, {
    asOf: new Date(origin * 1000),
    months: rentsEnv.RENTS_EVAL_BACKTEST_MONTHS,
    log: (line) => log(`backtest ${line}`),
  });
  accuracy = accuracySource(client, 3_600);
  const estimates: Prediction[] = [];
  for (let i = 0; i < subjects.length; i += 8) {
    estimates.push(...(await Promise.all(subjects.slice(i, i + 8).map((s) => ours(s, origin)))));
  }
  const gbm = gbmPredictions(rentsEnv.dataDir, train, subjects);
  const methods: [string, Prediction[]][] = [
    ['ours (the endpoint)', estimates],
    [
      'the type’s median, last 90 days',
      subjects.map((s) => ({ actual: s.rent, estimate: typeMedian(train, s, origin) })),
    ],
    [
      'median of the 15 nearest of the type, bedrooms ±1',
      subjects.map((s) => ({ actual: s.rent, estimate: nearestMedian(train, s, origin) })),
    ],
    [
      'gradient boosting (scikit-learn, place, type, bedrooms, bathrooms, area)',
      subjects.map((s) => ({ actual: s.rent, estimate: gbm.get(s.id) ?? NaN })),
    ],
  ];
  console.log(
    `\n${name}: ${subjects.length} listings first listed in ${monthOf(origin)}, estimated from the ${train.length} before\n`,
  );
  const own = report.live.find((f) => f.level === 'all');
  console.log(
    `The backtest's own figures over the ${rentsEnv.RENTS_EVAL_BACKTEST_MONTHS} months before: median APE ` +
      `${pct(own?.median_ape ?? null)}, 80 % interval covers ${pct(own?.interval_coverage ?? null)}\n`,
  );
  console.log(
    '| on the next month’s listings | estimated | median APE | within 10 % | within 20 % | 80 % interval covers |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const [method, predictions] of methods) {
    const f = methodFigures(predictions);
    console.log(
      `| ${method} | ${f.n} | ${pct(f.medianApe)} | ${pct(f.within10)} | ${pct(f.within20)} | ${pct(f.coverage)} |`,
    );
  }
}

const wanted = rentsEnv.RENTS_DATASETS?.split(',').map((s) => s.trim());
const files = fs.existsSync(rentsEnv.dataDir)
  ? fs
      .readdirSync(rentsEnv.dataDir)
      .filter((f) => f.endsWith('.csv'))
      .sort()
  : [];
if (!files.length) {
  process.stderr.write(`no datasets in ${rentsEnv.dataDir}: run npm run rents:fetch first\n`);
  process.exit(2);
}
try {
  for (const file of files) {
    const name = file.replace(/\.csv$/, '');
    if (wanted && !wanted.includes(name)) continue;
    await evaluate(name, parseCsv(fs.readFileSync(path.join(rentsEnv.dataDir, file), 'utf8')));
  }
} finally {
  await client.close();
  await admin.close();
}
