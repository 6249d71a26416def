// The nodes of the cluster topology by their pid files ($RLS_STATE_DIR/pids/<component>-<n>.pid,
// shared/CONTRACT.md "Cluster topology"): kill one, and bring back whatever is missing.
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function pidFile(component: 'kafka' | 'redis', n: number): string {
  const dir = process.env.RLS_STATE_DIR;
  if (!dir)
    throw new Error('RLS_STATE_DIR is not set: run the cluster phase with `RLS_TOPOLOGY=cluster npm test`');
  return path.join(dir, 'pids', `${component}-${n}.pid`);
}

/** SIGKILLs node n of a component; returns its pid. */
export function killNode(component: 'kafka' | 'redis', n: number): number {
  const pid = Number(fs.readFileSync(pidFile(component, n), 'utf8').trim());
  process.kill(pid, 'SIGKILL');
  return pid;
}

/** Starts the nodes that are not running (`npm run stack -- up` leaves the others alone). */
export function restartMissing(): void {
  execSync(process.env.RLS_CLUSTER_UP_COMMAND ?? 'npm run --silent stack -- up', { stdio: 'inherit' });
}
