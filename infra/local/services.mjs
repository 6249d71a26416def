// Runs the service processes (API gateway and stream worker) as children, and waits for /healthz.
import { spawn } from 'node:child_process';
import { repoRoot } from './settings.mjs';

const entryPoints = { gateway: 'gateway/main.ts', stream: 'stream/main.ts' };

export function spawnService(name, env, { stdio = 'inherit' } = {}) {
  // RLS_NODE_FLAGS: extra node flags for the services, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
  // to profile them under a benchmark (NODE_OPTIONS refuses --cpu-prof).
  const flags = (env.RLS_NODE_FLAGS ?? process.env.RLS_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', entryPoints[name]], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio,
  });
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
      const token = process.env.OPERATOR_TOKEN;
      const response = await fetch(`http://127.0.0.1:${port}/healthz`, {
        headers: token ? { 'X-Operator-Token': token } : {},
      });
      last = await response.text();
      if (response.status === 200) return;
    } catch (error) {
      last = error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
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
