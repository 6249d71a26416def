// What the benchmarks read about the stack's processes from Linux /proc: CPU time (user + system of
// every thread, so a JVM's or ClickHouse's pools are included, and of the children each has reaped)
// between two snapshots, printed as µs of CPU per listing; resident memory; start times (to tell a
// restarted process).
import fs from 'node:fs';
import path from 'node:path';
import { isAlive, readPid } from '../infra/local/processes.mjs';

/** Linux's USER_HZ: /proc times are in 1/100 s on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

export interface TrackedProcess {
  name: string;
  pid: number;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces), from field 3. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * utime + stime (fields 14 and 15), plus cutime + cstime (16 and 17): the CPU of the children the
 * process has reaped, e.g. Redis's forked rewrites of its append-only file (~10 s of CPU each at
 * 550 MB) and the image process's decoders. A child still running is counted once it ends.
 */
function cpuTicks(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields && Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

/** Start time in clock ticks since boot: a different value for the same pid is another process. */
export function startTicks(pid: number): string | undefined {
  return statFields(pid)?.[19]; // field 22
}

/** Resident memory now and at its peak (VmHWM), in kB. */
export function residentMemory(pid: number): { rssKb: number; hwmKb: number } | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      rssKb: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]),
      hwmKb: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]),
    };
  } catch {
    return undefined;
  }
}

/** Resident memory of a process and its children (the image process and its decoders), in kB. */
export function residentMemoryWithChildren(pid: number): { rssKb: number; children: number } | undefined {
  const own = residentMemory(pid);
  if (!own) return undefined;
  const children = childrenOf(pid);
  return {
    rssKb: children.reduce((sum, child) => sum + (residentMemory(child)?.rssKb ?? 0), own.rssKb),
    children: children.length,
  };
}

export function childrenOf(pid: number): number[] {
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

/**
 * The nodes of a stack component by their pid files (`<stateDir>/pids/<component>-<n>.pid`, one per
 * node), with their children: ClickHouse's pid is the launcher's, and the server is its child
 * (infra/local/clickhouse/launcher.c). A single node is named `component`, others `component-<n>`.
 */
export function componentProcesses(stateDir: string, component: string): TrackedProcess[] {
  const pidsDir = path.join(stateDir, 'pids');
  let files: string[];
  try {
    files = fs.readdirSync(pidsDir).filter((f) => new RegExp(`^${component}-\\d+\\.pid$`).test(f));
  } catch {
    return [];
  }
  return files.sort().flatMap((file) => {
    const pid = readPid(path.join(pidsDir, file));
    if (!isAlive(pid)) return [];
    const name = files.length === 1 ? component : file.replace(/\.pid$/, '');
    return [
      { name, pid },
      ...childrenOf(pid).map((child) => ({ name: `${name} (child ${child})`, pid: child })),
    ];
  });
}

/** Every component of the stack (ClickHouse, Redis, Kafka) that runs on this machine. */
export function stackProcesses(stateDir = process.env.RLS_STATE_DIR ?? '.local'): TrackedProcess[] {
  return ['clickhouse', 'redis', 'kafka'].flatMap((component) => componentProcesses(stateDir, component));
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
    `CPU per process over ${seconds.toFixed(1)} s and ${listings} listings (/proc utime+stime with reaped children, ${1e6 / TICKS_PER_SECOND / 1000} ms resolution):`,
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
