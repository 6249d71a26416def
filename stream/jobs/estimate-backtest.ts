// The rent estimate's backtest on its schedule (ESTIMATE_BACKTEST_CRON, default 02:30 UTC daily)
// over the last ESTIMATE_BACKTEST_MONTHS (6) complete months; one worker of the cluster runs each
// day's. It runs in the worker's process between its consumers' batches (the search yields to the
// event loop every 2,000 listings), with its own ClickHouse client whose requests may take minutes.
// Its memory grows with the listings of the months (1.2 GB peak at 10 M listings): `off` leaves it
// to `npm run backtest` on a machine of its own.
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import type { Platform } from '../../common/platform.ts';
import { BACKTEST_REQUEST_TIMEOUT_MS, runBacktest } from '../estimate/backtest.ts';
import type { Job } from './schedule.ts';

export function estimateBacktestJob(platform: Platform, cron: string, months: number): Job {
  const logger = platform.logger.child({ task: 'estimate-backtest' });
  const client = createClickHouse({
    url: platform.env.CLICKHOUSE_URL,
    username: platform.env.CLICKHOUSE_USER,
    password: platform.env.CLICKHOUSE_PASSWORD,
    database: platform.env.CLICKHOUSE_DATABASE,
    requestTimeoutMs: BACKTEST_REQUEST_TIMEOUT_MS,
  });
  return {
    name: 'estimate-backtest',
    cron,
    // Longer than any run (minutes at 10 M listings); the previous run stays in place on failure.
    lockTtlMs: 6 * 3_600_000,
    async run({ signal }) {
      const report = await runBacktest(client, { months, signal });
      const all = report.live.find((f) => f.level === 'all');
      logger.info('estimate backtest written', {
        run_id: report.runId,
        seconds: Math.round(report.seconds),
        live_estimated: all?.n ?? 0,
        live_median_ape: all?.median_ape ?? null,
        live_baseline_median_ape: all?.baseline_median_ape ?? null,
        live_interval_coverage: all?.interval_coverage ?? null,
      });
    },
    close: () => client.close(),
  };
}
