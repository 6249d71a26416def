// `npm start`: dependencies, the build (dist/), local stack, then the API gateway and a stream
// worker in the foreground, compiled JavaScript on the pinned Node (services.mjs).
// SIGINT/SIGTERM stops the services, then the stack components this run started.
import { build } from '../build.mjs';
import { ensureDependencies } from './bootstrap.mjs';
import { inheritedEnvironment, readSettings } from './settings.mjs';

await ensureDependencies();
try {
  await build();
} catch (error) {
  process.stderr.write(`[stack] ${error.message}\n`);
  process.exit(1);
}
const { log } = await import('./processes.mjs');
const { startStack } = await import('./stack.mjs');
const { spawnService, stopChildren, waitForHealth } = await import('./services.mjs');

const settings = readSettings(inheritedEnvironment(), { profile: 'start' });
let stack;
let children = [];
let stopping = false;

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  log('stack', 'stopping');
  await stopChildren(children);
  await stack?.stop();
  log('stack', 'stopped');
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  stack = await startStack(settings);
  // The worker's /metrics listener: PORT + 10 (8090) unless STREAM_METRICS_PORT says otherwise;
  // the image process's PORT + 11 (8091) unless IMAGES_METRICS_PORT does.
  const streamMetricsPort = String(settings.streamMetricsPort);
  const imagesMetricsPort = String(settings.imagesMetricsPort);
  children = [
    spawnService('gateway', stack.env),
    spawnService('stream', { ...stack.env, STREAM_METRICS_PORT: streamMetricsPort }),
    spawnService('images', { ...stack.env, IMAGES_METRICS_PORT: imagesMetricsPort }),
  ];
  for (const child of children) {
    child.on('exit', (code, signal) => {
      if (stopping) return;
      log(child.serviceName, `exited unexpectedly (code ${code}, signal ${signal}); stopping everything`);
      void shutdown(1);
    });
  }
  // Generous: a worker's first start on a store without listing owners rebuilds them from
  // ClickHouse before it consumes (~1 min per 5 M listings; stream/listings/owners-rebuild.ts).
  await waitForHealth(settings.port, { children, timeoutMs: 300_000 });
  await waitForHealth(Number(imagesMetricsPort), { children, timeoutMs: 120_000 });
  log(
    'stack',
    `serving http://127.0.0.1:${settings.port}/api/v1 (docs: /docs, dashboard: /dashboard, health: /healthz, ` +
      `metrics: /metrics, :${streamMetricsPort}/metrics for the worker, :${imagesMetricsPort}/metrics for ` +
      `the image process); Ctrl-C stops`,
  );
} catch (error) {
  process.stderr.write(`[stack] start failed: ${error.message}\n`);
  await shutdown(1);
}
