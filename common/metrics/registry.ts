// Prometheus metrics of this process (GET /metrics, prom-client). One registry per process, as there
// is one environment: the families are module-level, so the ClickHouse writer, the rate limiter or
// the webhook deliverer record without a registry threaded through every constructor. The tests
// read them over HTTP from the real processes (test/integration/observability.test.ts).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const metricsRegistry = new Registry();
// process_* and nodejs_* (CPU, memory, event-loop lag, GC, nodejs_version_info).
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests by method, route (the matched path pattern; "unmatched" otherwise) and status code',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

export const rateLimitRejections = new Counter({
  name: 'rate_limit_rejections_total',
  help: 'Requests refused with 429 because the key or its account used up its window, by key tier and scope',
  labelNames: ['tier', 'scope'] as const,
  registers,
});

export const analyticsAdmission = new Gauge({
  name: 'analytics_admission',
  help: 'Analytics computations (cache misses) of this process running and waiting for a slot (analytics-api/admission.ts)',
  labelNames: ['state'] as const,
  registers,
});

export const analyticsAdmissionRejections = new Counter({
  name: 'analytics_admission_rejections_total',
  help: 'Analytics requests refused with 429 concurrency_limited because their account queue was full',
  registers,
});

export const writerFlushRows = new Histogram({
  name: 'clickhouse_writer_flush_rows',
  help: 'Rows per batched ClickHouse insert of the stream writer, by table',
  labelNames: ['table'] as const,
  buckets: [1, 10, 100, 500, 1_000, 2_500, 5_000, 10_000, 25_000],
  registers,
});

export const writerFlushDuration = new Histogram({
  name: 'clickhouse_writer_flush_duration_seconds',
  help: 'Time from a flush to its rows stored (retries and bisection included), by table and outcome',
  labelNames: ['table', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers,
});

/** Where a stream batch's time goes before and after its handler (docs/stream.md, item 10). */
const batchBuckets = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2.5, 5, 10, 30];

export const streamBatchWait = new Histogram({
  name: 'stream_batch_wait_seconds',
  help: "Time from the Kafka timestamp of a batch's first message (the producer's clock) to the consumer handing the batch to its handler, by topic",
  labelNames: ['topic'] as const,
  buckets: batchBuckets,
  registers,
});

export const streamBatchStore = new Histogram({
  name: 'stream_batch_store_seconds',
  help: 'Time from the consumer handing a batch to its handler to the batch stored and committed (outcome committed), or settled to be read again (read_again), by topic',
  labelNames: ['topic', 'outcome'] as const,
  buckets: batchBuckets,
  registers,
});

export const quarantinedMessages = new Counter({
  name: 'stream_quarantined_messages_total',
  help: 'Messages (or listings of a message) the stream could not store: dead-letter topic and quarantine table',
  labelNames: ['source'] as const,
  registers,
});

export const webhookDeliveries = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Webhook delivery attempts by outcome (succeeded, retrying, failed, gone, dropped; error: the attempt itself failed)',
  labelNames: ['outcome'] as const,
  registers,
});

export const webhookOutboxBacklog = new Gauge({
  name: 'webhook_outbox_backlog',
  help: 'Webhook events in the Redis outbox not yet turned into deliveries (unread + pending), as last measured by this worker',
  registers,
});

type LagSource = () => Record<string, number>;
const lagSources = new Map<string, LagSource>();

/** Offsets behind each partition's high watermark, read from the consumers at scrape time. */
export const kafkaConsumerLag = new Gauge({
  name: 'kafka_consumer_lag',
  help: 'Messages between the last committed offset and the high watermark, per consumer and partition',
  labelNames: ['consumer', 'partition'] as const,
  registers,
  collect() {
    this.reset(); // partitions reassigned to another worker disappear instead of keeping old values
    for (const [consumer, lag] of lagSources) {
      for (const [partition, value] of Object.entries(lag())) this.set({ consumer, partition }, value);
    }
  },
});

/** A stream consumer whose per-partition lag `kafka_consumer_lag` reports. */
export function reportConsumerLag(consumer: string, lag: LagSource): void {
  lagSources.set(consumer, lag);
}

export const kafkaPartitionResends = new Counter({
  name: 'kafka_partition_resent_messages_total',
  help: 'Messages sent again because a send resolved without an acknowledgement for their partition, by topic',
  labelNames: ['topic'] as const,
  registers,
});

export const pricingReads = new Counter({
  name: 'pricing_reads_total',
  help: 'Pricing answers by where their price figures came from: summaries (prepared, current) or prices (computed at request time: a group written since its summary)',
  labelNames: ['source'] as const,
  registers,
});

export const scheduledJobRuns = new Counter({
  name: 'scheduled_job_runs_total',
  help: 'Scheduled runs of the stream worker’s jobs by job and outcome (succeeded, failed; skipped: another worker holds the run’s lock)',
  labelNames: ['job', 'outcome'] as const,
  registers,
});

export const scheduledJobDuration = new Histogram({
  name: 'scheduled_job_duration_seconds',
  help: 'Time of a scheduled run of a stream worker job (lock included), by job and outcome',
  labelNames: ['job', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1_800, 7_200],
  registers,
});

export const scheduledJobLastSuccess = new Gauge({
  name: 'scheduled_job_last_success_timestamp_seconds',
  help: 'Unix time of the last run of a stream worker job that succeeded in this process, by job (absent until one has)',
  labelNames: ['job'] as const,
  registers,
});
