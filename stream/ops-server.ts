// The stream worker's own small HTTP listener on STREAM_METRICS_PORT (docs/operations.md, "Observability"):
// GET /metrics (Prometheus: kafka_consumer_lag per partition, writer flushes, quarantine, webhook
// outcomes, process metrics), /livez, and /readyz = /healthz = Kafka, ClickHouse and Redis, the
// worker's own dependencies. No API and no key here; operators see health details with the
// operator token as on the API processes.
import express from 'express';
import type { ListenerEnv } from '../common/env.ts';
import { healthRoutes } from '../common/http/health-routes.ts';
import { listen, type RunningServer } from '../common/http/app.ts';
import { metricsRoute } from '../common/http/metrics-route.ts';
import { httpTimeouts } from '../common/http/timeouts.ts';
import type { Logger } from '../common/logger.ts';
import { reportConsumerLag } from '../common/metrics/registry.ts';
import type { Platform } from '../common/platform.ts';

export async function startOpsServer(options: {
  port: number;
  /** Listening address (STREAM_METRICS_HOST, loopback by default). */
  host: string;
  platform: Platform;
  /** Consumers by name, whose lag per partition the metrics report. */
  consumers: Record<string, { lag(): Record<string, number> }>;
  /** OPERATOR_TOKEN and the HTTP timeouts of the process's environment. */
  env: ListenerEnv;
  logger: Logger;
}): Promise<RunningServer> {
  for (const [name, consumer] of Object.entries(options.consumers)) {
    reportConsumerLag(name, () => consumer.lag());
  }
  const readiness = options.platform.readiness(['kafka', 'clickhouse', 'redis']);
  const app = express();
  app.disable('x-powered-by');
  app.use(healthRoutes({ health: readiness, readiness, operatorToken: options.env.OPERATOR_TOKEN }));
  app.use(metricsRoute());
  app.use((_req, res) => {
    res.status(404).json({ error: 'not found: this listener serves /metrics, /livez, /readyz' });
  });
  // Plain HTTP only: TLS_* configure the API listeners, not this one.
  const server = await listen(app, options.port, { host: options.host, timeouts: httpTimeouts(options.env) });
  options.logger.info('metrics listening', { host: options.host, port: server.port, path: '/metrics' });
  return server;
}
