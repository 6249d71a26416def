// Runs the rent estimate's backtest on a cron schedule inside the stream worker (stream/main.ts):
// ESTIMATE_BACKTEST_CRON (default 02:30 UTC daily) over the last ESTIMATE_BACKTEST_MONTHS (6)
// complete months. With several workers, a Redis lock lets one of them run it; the others skip
// that day's run. It runs in the worker's process between its consumers' batches (the search
// yields to the event loop every 2,000 listings), with its own ClickHouse client whose requests
// may take minutes. Its memory grows with the listings of the months (1.2 GB peak at 10 M
// listings): `off` leaves it to `npm run backtest` on a machine of its own.
import cron from 'node-cron';
import { z } from 'zod';
import { createClickHouse } from '../clients/clickhouse.ts';
import { parseEnv } from '../env.ts';
import { errorFields } from '../logger.ts';
import type { Platform } from '../platform.ts';
import { BACKTEST_REQUEST_TIMEOUT_MS, DEFAULT_BACKTEST_MONTHS, runBacktest } from './backtest.ts';

export const estimateBacktestEnvSchema = z.object({
  ESTIMATE_BACKTEST_CRON: z
    .string()
    .default('30 2 * * *')
    .refine(
      (expression) => expression === 'off' || cron.validate(expression),
      'must be a cron expression or off',
    ),
  ESTIMATE_BACKTEST_MONTHS: z.coerce.number().int().min(1).max(24).default(DEFAULT_BACKTEST_MONTHS),
});

/** Longer than any run (minutes at 10 M listings); released when the run ends. */
const LOCK_TTL_MS = 6 * 3_600_000;

export interface EstimateBacktestTask {
  stop(): Promise<void>;
}

export function startEstimateBacktest(platform: Platform, env: NodeJS.ProcessEnv): EstimateBacktestTask {
  const settings = parseEnv(estimateBacktestEnvSchema, env);
  if (settings.ESTIMATE_BACKTEST_CRON === 'off') return { stop: async () => undefined };
  const logger = platform.logger.child({ task: 'estimate-backtest' });
  const lock = `${platform.env.REDIS_KEY_PREFIX}estimate:backtest:lock`;
  const client = createClickHouse({
    url: platform.env.CLICKHOUSE_URL,
    username: platform.env.CLICKHOUSE_USER,
    password: platform.env.CLICKHOUSE_PASSWORD,
    database: platform.env.CLICKHOUSE_DATABASE,
    requestTimeoutMs: BACKTEST_REQUEST_TIMEOUT_MS,
  });
  const abort = new AbortController();
  const run = async () => {
    if ((await platform.redis.set(lock, String(process.pid), 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') return;
    try {
      const report = await runBacktest(client, {
        months: settings.ESTIMATE_BACKTEST_MONTHS,
        signal: abort.signal,
      });
      const all = report.live.find((f) => f.level === 'all');
      logger.info('estimate backtest written', {
        run_id: report.runId,
        seconds: Math.round(report.seconds),
        live_estimated: all?.n ?? 0,
        live_median_ape: all?.median_ape ?? null,
        live_baseline_median_ape: all?.baseline_median_ape ?? null,
        live_interval_coverage: all?.interval_coverage ?? null,
      });
    } finally {
      await platform.redis.del(lock);
    }
  };
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    settings.ESTIMATE_BACKTEST_CRON,
    () => {
      running = run().catch((error) => {
        if (!abort.signal.aborted)
          logger.warn('estimate backtest failed; the endpoint keeps the previous run', errorFields(error));
      });
      return running;
    },
    { noOverlap: true, name: 'estimate-backtest' },
  );
  return {
    async stop() {
      await task.stop();
      abort.abort(); // a run in progress stops at its next chunk; the previous run stays in place
      await running;
      await client.close();
    },
  };
}
