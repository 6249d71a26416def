import { z } from 'zod';
import { baseEnvSchema, envFields } from '../common/env.ts';
import { DEFAULT_USD_TZS } from './enrich/fx.ts';

export const streamEnvSchema = baseEnvSchema.extend({
  STREAM_GROUP_PREFIX: envFields.topicPrefix.default('rls'),
  /** Rows per insert (flush on size), the longest a row waits for its insert (flush on time), and the
   * quiet gap after which a partial insert goes (no rows came in meanwhile). */
  SINK_MAX_ROWS: envFields.positiveInt.default(10_000),
  SINK_MAX_DELAY_MS: envFields.positiveInt.default(300),
  SINK_QUIET_MS: envFields.positiveInt.default(20),
  SINK_QUIET_MIN_ROWS: envFields.positiveInt.default(1_000),
  STREAM_WORKER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .optional(),
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
  /** Listings whose place the view enrichment keeps in memory. */
  STREAM_LISTING_CACHE_SIZE: envFields.positiveInt.default(200_000),
  /** TZS per USD for price_tzs (docs/stream.md, "Exchange rates"). */
  FX_USD_TZS: z.coerce.number().positive().finite().default(DEFAULT_USD_TZS),
  /** The worker's /metrics, /livez and /readyz listener (stream/ops-server.ts); 0: any free port. */
  STREAM_METRICS_PORT: envFields.port.default(9464),
  /**
   * Address of that listener: loopback unless an operator opens it (`0.0.0.0` for a Prometheus on
   * another host), like the other local listeners — its health details and metrics map the stack.
   */
  STREAM_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Test hook: SIGKILL the worker after its first stored listings batch, before the commit. */
  STREAM_CRASH_AFTER_INSERT: z.enum(['0', '1']).default('0'),
});
export type StreamEnv = z.infer<typeof streamEnvSchema>;
