// CPU accounting per process from Linux /proc: user + system time of each process of the stack
// (services, ClickHouse, Redis, Kafka) between two snapshots, printed as µs of CPU per listing.
// /proc/<pid>/stat counts every thread of the process, so a JVM's or ClickHouse's pools are included.
import fs from 'node:fs';
import path from 'node:path';

/** Linux's USER_HZ: /proc times are in 1/100 s on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

export interface TrackedProcess {
  name: string;
  pid: number;
}

function cpuTicks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may contain spaces), so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15 of stat)
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(' ')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function pidFromFile(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && cpuTicks(pid) !== undefined ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The stack's components by their pid files under the state directory. ClickHouse's pid is the
 * launcher's; the server is its child (infra/local/clickhouse/launcher.c), so both are counted.
 */
export function stackProcesses(stateDir = process.env.RLS_STATE_DIR ?? '.local'): TrackedProcess[] {
  const tracked: TrackedProcess[] = [];
  for (const component of ['clickhouse', 'redis', 'kafka']) {
    const pid = pidFromFile(path.join(stateDir, component, `${component}.pid`));
    if (pid === undefined) continue;
    tracked.push({ name: component, pid });
    for (const child of childrenOf(pid)) tracked.push({ name: `${component} (child ${child})`, pid: child });
  }
  return tracked;
}

export type CpuSnapshot = Map<number, number>;

export function cpuSnapshot(processes: TrackedProcess[]): CpuSnapshot {
  return new Map(processes.map((p) => [p.pid, cpuTicks(p.pid) ?? 0]));
}

/**
 * Prints CPU seconds, share of one core and µs per listing for each process between two snapshots,
 * and the total of the processes counted (`countedInTotal`; e.g. not the load generator).
 */
export function printCpuTable(
  processes: TrackedProcess[],
  before: CpuSnapshot,
  after: CpuSnapshot,
  { listings, seconds, notCounted = [] }: { listings: number; seconds: number; notCounted?: string[] },
): { totalMicrosPerListing: number; byName: Record<string, number> } {
  const rows = processes.map((p) => {
    const cpuSeconds = ((after.get(p.pid) ?? 0) - (before.get(p.pid) ?? 0)) / TICKS_PER_SECOND;
    return { name: p.name, cpuSeconds, counted: !notCounted.includes(p.name) };
  });
  const micros = (cpuSeconds: number) => (cpuSeconds * 1e6) / Math.max(1, listings);
  console.log(
    `CPU per process over ${seconds.toFixed(1)} s and ${listings} listings (/proc utime+stime, ${1e6 / TICKS_PER_SECOND / 1000} ms resolution):`,
  );
  console.log(
    `  ${'process'.padEnd(28)} ${'CPU s'.padStart(8)} ${'cores'.padStart(6)} ${'µs/listing'.padStart(11)}`,
  );
  const byName: Record<string, number> = {};
  let total = 0;
  for (const row of rows) {
    const perListing = micros(row.cpuSeconds);
    byName[row.name] = perListing;
    if (row.counted) total += row.cpuSeconds;
    console.log(
      `  ${(row.counted ? row.name : `${row.name} (not counted)`).padEnd(28)} ${row.cpuSeconds.toFixed(2).padStart(8)} ${(row.cpuSeconds / seconds).toFixed(2).padStart(6)} ${perListing.toFixed(1).padStart(11)}`,
    );
  }
  console.log(
    `  ${'total'.padEnd(28)} ${total.toFixed(2).padStart(8)} ${(total / seconds).toFixed(2).padStart(6)} ${micros(total).toFixed(1).padStart(11)}`,
  );
  return { totalMicrosPerListing: micros(total), byName };
}
