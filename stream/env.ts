// The stream worker's environment (npm run start:stream; docs/configuration.md, "Variables"), parsed once at
// boot and handed to its pipelines, webhook worker, scheduled jobs and ops listener.
import { z } from 'zod';
import { checkListenerEnv, envFields, sharedEnvSchema, workerEnvSchema } from '../common/env.ts';
import { benchBuildEnvSchema, checkBenchBuildEnv } from '../common/bench-build.ts';
import { DEFAULT_BACKTEST_MONTHS } from './estimate/backtest.ts';
import { cronExpression } from './jobs/schedule.ts';
import { webhookWorkerEnvSchema } from './webhooks/env.ts';

/** When the scheduled jobs run (stream/jobs/), read in UTC. */
const jobsEnvSchema = z.object({
  /** Redis usage counters → ClickHouse api_key_usage_daily. */
  USAGE_ROLLUP_CRON: cronExpression('* * * * *'),
  /** Queued key audit events → ClickHouse key_audit_events. */
  KEY_AUDIT_FLUSH_CRON: cronExpression('* * * * *'),
  /** The rent estimate's backtest → estimate_accuracy; `off`: only `npm run backtest` runs it. */
  ESTIMATE_BACKTEST_CRON: cronExpression('30 2 * * *', { orOff: true }),
  ESTIMATE_BACKTEST_MONTHS: z.coerce.number().int().min(1).max(24).default(DEFAULT_BACKTEST_MONTHS),
  /** Listings neither re-sent nor changed for 60 days expire (docs/lifecycle.md). */
  LIFECYCLE_EXPIRY_CRON: cronExpression('17 3 * * *'),
  /** The pricing answer's prepared figures of quiet groups (docs/analytics.md, "Pricing"). */
  PRICE_SUMMARIES_CRON: cronExpression('*/10 * * * * *', { orOff: true }),
});

export const streamEnvSchema = workerEnvSchema
  .extend(sharedEnvSchema.pick({ FX_USD_TZS: true }).shape)
  .extend(webhookWorkerEnvSchema.shape)
  .extend(jobsEnvSchema.shape)
  .extend(benchBuildEnvSchema.shape)
  .extend({
    /** Rows per insert (flush on size), the longest a row waits for its insert (flush on time), and the
     * quiet gap after which a partial insert goes (no rows came in meanwhile). */
    SINK_MAX_ROWS: envFields.positiveInt.default(10_000),
    SINK_MAX_DELAY_MS: envFields.positiveInt.default(300),
    SINK_QUIET_MS: envFields.positiveInt.default(20),
    SINK_QUIET_MIN_ROWS: envFields.positiveInt.default(1_000),
    STREAM_WORKER_ID: envFields.workerId,
    /** Partitions one worker processes at the same time (per consumer). */
    STREAM_PARTITIONS_CONCURRENTLY: envFields.positiveInt.default(6),
    /**
     * Bytes one fetch may bring per partition. Each fetched listings message becomes ~10× its size in
     * parsed objects while its batch is handled, for every partition in flight: 4 MiB held the worker
     * at 550–770 MB resident under bench:stream; 1 MiB (kafkajs's default) keeps it lower at the same
     * throughput (docs/stream.md, "Throughput").
     */
    STREAM_FETCH_MAX_BYTES_PER_PARTITION: envFields.positiveInt.default(1024 * 1024),
    /** Listings consumer-group members per worker process (docs/stream.md, "Throughput"). */
    STREAM_LISTINGS_MEMBERS: envFields.positiveInt.default(2),
    /**
     * Batches of a listings or views partition in flight at once: at 2 a member fetches and prepares
     * the next batch while the previous one is inserted (offset-consumer.ts, "Pipelining"); 1 waits
     * for each insert and commit before fetching again.
     */
    STREAM_PIPELINE_DEPTH: envFields.positiveInt.default(2),
    /** Listings whose place the view enrichment keeps in memory. */
    STREAM_LISTING_CACHE_SIZE: envFields.positiveInt.default(200_000),
    /** The worker's /metrics, /livez and /readyz listener (stream/ops-server.ts); 0: any free port. */
    STREAM_METRICS_PORT: envFields.port.default(9464),
    /**
     * Address of that listener: loopback unless an operator opens it (`0.0.0.0` for a Prometheus on
     * another host), like the other local listeners — its health details and metrics map the stack.
     */
    STREAM_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    /** Test hook: SIGKILL the worker after its first stored listings batch, before the commit. */
    STREAM_CRASH_AFTER_INSERT: z.enum(['0', '1']).default('0'),
  })
  .superRefine(checkListenerEnv)
  .superRefine(checkBenchBuildEnv);
export type StreamEnv = z.infer<typeof streamEnvSchema>;
