// Starts the services under test (API gateway, one stream worker, one image process) against the stack that
// `npm test` brought up, and stops them afterwards. Tests reach them via RLS_BASE_URL.
import type { ChildProcess } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { spawnService, stopChildren, waitForHealth } from '../../infra/local/services.mjs';

let children: ChildProcess[] = [];

export async function setup(project: TestProject): Promise<void> {
  if (!process.env.KAFKA_BROKERS)
    throw new Error('run the suite with `npm test`, which provisions the stack');
  const port = process.env.PORT ?? '28080';
  const env = {
    ...process.env,
    PORT: port,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Short analytics cache so tests polling for fresh numbers see them within seconds.
    ANALYTICS_CACHE_TTL_SECONDS: process.env.ANALYTICS_CACHE_TTL_SECONDS ?? '5',
  };
  const metricsPort = process.env.RLS_TEST_STREAM_METRICS_PORT ?? String(Number(port) + 10);
  const imagesMetricsPort = process.env.RLS_TEST_IMAGES_METRICS_PORT ?? String(Number(port) + 11);
  children = [
    spawnService('gateway', env),
    spawnService('stream', { ...env, STREAM_METRICS_PORT: metricsPort }),
    spawnService('images', { ...env, IMAGES_METRICS_PORT: imagesMetricsPort }),
  ];
  await waitForHealth(Number(port), { children, timeoutMs: 90_000 });
  // Ready once it has reported its consumer (the report comes before its listener).
  await waitForHealth(Number(imagesMetricsPort), { children, timeoutMs: 90_000 });
  project.provide('baseUrl', `http://127.0.0.1:${port}`);
  project.provide('streamMetricsUrl', `http://127.0.0.1:${metricsPort}`);
}

export async function teardown(): Promise<void> {
  await stopChildren(children);
}
