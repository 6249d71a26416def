// Where a Node process's resident memory is, sampled while a benchmark runs: V8's heap spaces and
// external memory (from the process's own /metrics, prom-client's nodejs_* families) beside what
// Linux counts (/proc/<pid>/status: VmRSS, RssAnon, RssFile; /proc/<pid>/smaps: the anonymous
// memory by kind of mapping). What neither V8 nor the Buffers account for is glibc malloc's arenas
// (their free chunks stay resident), native libraries, WASM memory and thread stacks.
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** glibc maps each thread arena as one 64 MiB-aligned, 64 MiB region (HEAP_MAX_SIZE on 64-bit). */
const ARENA_BYTES = 64 * 1024 * 1024;

export interface MemorySample {
  at: number;
  phase: string;
  rssKb: number;
  hwmKb: number;
  anonKb: number;
  fileKb: number;
  /** Resident anonymous memory by mapping: the main malloc arena ([heap]), the thread arenas, the rest. */
  mainArenaKb: number;
  threadArenaKb: number;
  threadArenas: number;
  otherAnonKb: number;
  threads: number;
  /** V8 heap committed, per space and in total, and used; external memory (Buffers, ArrayBuffers). */
  heapSpacesKb: Record<string, number>;
  heapTotalKb: number;
  heapUsedKb: number;
  externalKb: number;
  /** Garbage collections so far by kind (major, minor, incremental, weakcb): count and main-thread seconds. */
  gc: Record<string, { count: number; seconds: number }>;
}

function statusFields(pid: number) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return {
    rssKb: kb('VmRSS'),
    hwmKb: kb('VmHWM'),
    anonKb: kb('RssAnon'),
    fileKb: kb('RssFile'),
    threads: kb('Threads'),
  };
}

/** Resident anonymous kB of the main arena, the thread arenas (and how many), and everything else. */
function anonymousMappings(pid: number) {
  const mappings: { start: bigint; end: bigint; perms: string; name: string; rssKb: number }[] = [];
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (header) {
      const [, start, end, perms, inode, name] = header;
      mappings.push({
        start: BigInt(`0x${start}`),
        end: BigInt(`0x${end}`),
        perms: perms!,
        name: inode === '0' ? name! : 'file',
        rssKb: 0,
      });
    } else if (line.startsWith('Rss:')) {
      mappings.at(-1)!.rssKb = Number(/(\d+)/.exec(line)![1]);
    }
  }
  const arenaBytes = BigInt(ARENA_BYTES);
  let mainArenaKb = 0;
  let threadArenaKb = 0;
  let threadArenas = 0;
  let otherAnonKb = 0;
  mappings.forEach((m, i) => {
    if (m.name === 'file') return;
    if (m.name === '[heap]') mainArenaKb += m.rssKb;
    else if (m.name !== '')
      return; // [stack], [vvar], [vdso]: small and fixed
    else if (m.start % arenaBytes === 0n && regionEnd(mappings, i) === m.start + arenaBytes) {
      threadArenaKb += m.rssKb;
      threadArenas++;
    } else if (!isArenaTail(mappings, i, arenaBytes)) otherAnonKb += m.rssKb;
  });
  return { mainArenaKb, threadArenaKb, threadArenas, otherAnonKb };
}

/** Where an arena's used part and its reserved, inaccessible tail (---p) end together. */
function regionEnd(mappings: { start: bigint; end: bigint; perms: string }[], i: number): bigint {
  const next = mappings[i + 1];
  return next && next.start === mappings[i]!.end && next.perms === '---p' ? next.end : mappings[i]!.end;
}

function isArenaTail(
  mappings: { start: bigint; end: bigint; perms: string }[],
  i: number,
  arenaBytes: bigint,
) {
  const previous = mappings[i - 1];
  const m = mappings[i]!;
  return (
    m.perms === '---p' &&
    previous !== undefined &&
    previous.end === m.start &&
    previous.start % arenaBytes === 0n &&
    m.end === previous.start + arenaBytes
  );
}

/** V8 heap and external memory from the process's Prometheus metrics, in kB. */
async function v8Memory(metricsUrl: string) {
  const text = await (await fetch(metricsUrl)).text();
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN) / 1024;
  const heapSpacesKb: Record<string, number> = {};
  for (const [, space, bytes] of text.matchAll(
    /^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)$/gm,
  )) {
    heapSpacesKb[space!] = Number(bytes) / 1024;
  }
  const gc: MemorySample['gc'] = {};
  for (const [, part, kind, amount] of text.matchAll(
    /^nodejs_gc_duration_seconds_(sum|count)\{kind="(\w+)"\} (\S+)$/gm,
  )) {
    gc[kind!] ??= { count: 0, seconds: 0 };
    gc[kind!]![part === 'sum' ? 'seconds' : 'count'] = Number(amount);
  }
  return {
    gc,
    heapSpacesKb,
    heapTotalKb: value(/^nodejs_heap_size_total_bytes (\S+)$/m),
    heapUsedKb: value(/^nodejs_heap_size_used_bytes (\S+)$/m),
    externalKb: value(/^nodejs_external_memory_bytes (\S+)$/m),
  };
}

export async function sampleMemory(pid: number, metricsUrl: string, phase: string): Promise<MemorySample> {
  // /metrics first: its own rendering allocates, which the /proc figures then include.
  const v8 = await v8Memory(metricsUrl);
  return { at: Date.now(), phase, ...statusFields(pid), ...anonymousMappings(pid), ...v8 };
}

/**
 * Samples `pid` every `intervalMs` until stopped; `phase(name)` labels the samples that follow.
 * A sample that fails (the process gone, /metrics busy) is skipped.
 */
export function startMemorySampler(pid: number, metricsUrl: string, intervalMs = 1_000) {
  const samples: MemorySample[] = [];
  let phase = 'start';
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        samples.push(await sampleMemory(pid, metricsUrl, phase));
      } catch {
        // skipped
      }
      await sleep(Math.max(0, intervalMs - (Date.now() - started)));
    }
  })();
  return {
    phase(name: string) {
      phase = name;
    },
    async stop(): Promise<MemorySample[]> {
      stopped = true;
      await loop;
      return samples;
    },
  };
}

const mb = (kb: number) => (Number.isFinite(kb) ? (kb / 1024).toFixed(0) : '?');

/** One line per phase: its largest sample's breakdown, in MB; then the process's VmHWM. */
export function printMemoryBreakdown(name: string, samples: MemorySample[]): void {
  if (samples.length === 0) return console.log(`${name}: no memory samples`);
  const phases = [...new Set(samples.map((s) => s.phase))];
  const largest = (list: MemorySample[]) => list.reduce((a, b) => (b.rssKb > a.rssKb ? b : a));
  console.log(
    `${name} memory, largest sample per phase (MB; ${samples.length} samples; rest = RssAnon − V8 heap committed − external):`,
  );
  console.log(
    `  ${'phase'.padEnd(14)} ${['RSS', 'anon', 'file', 'heap', 'used', 'new', 'old', 'code', 'LO', 'ext', 'rest', '[heap]', 'arenas', 'other', 'thr'].map((h) => h.padStart(6)).join(' ')}`,
  );
  for (const phase of [...phases, 'all']) {
    const s = largest(phase === 'all' ? samples : samples.filter((x) => x.phase === phase));
    const space = (n: string) => s.heapSpacesKb[n] ?? NaN;
    const rest = s.anonKb - s.heapTotalKb - s.externalKb;
    const cells = [
      s.rssKb,
      s.anonKb,
      s.fileKb,
      s.heapTotalKb,
      s.heapUsedKb,
      space('new'),
      space('old'),
      space('code'),
      space('large_object'),
      s.externalKb,
      rest,
      s.mainArenaKb,
      s.threadArenaKb,
      s.otherAnonKb,
    ].map((kb) => mb(kb).padStart(6));
    console.log(`  ${phase.padEnd(14)} ${cells.join(' ')} ${`${s.threadArenas}/${s.threads}`.padStart(6)}`);
  }
  const [first, last] = [samples[0]!, samples.at(-1)!];
  console.log(
    `  (arenas: resident MB of glibc's thread arenas, thr: arenas/threads; [heap]: the main arena; other: the remaining anonymous memory, V8's heap among it) peak VmHWM ${mb(last.hwmKb)} MB`,
  );
  // Main-thread pauses only: concurrent marking on V8's helper threads is in the CPU tables.
  const collections = Object.entries(last.gc).map(([kind, { count, seconds }]) => {
    const before = first.gc[kind] ?? { count: 0, seconds: 0 };
    return `${kind} ${count - before.count} (${(seconds - before.seconds).toFixed(2)} s)`;
  });
  console.log(`  garbage collections between the first and last sample: ${collections.join(', ')}`);
}
