// The figures bench:check compares, read from the printouts of bench:ingest, bench:stream and
// bench:analytics. Names are those of bench/recorded.json.

export interface Figure {
  name: string;
  value: number;
  /** Whether a larger value is better (a ratio of throughputs) or worse (µs, ms). */
  better: 'higher' | 'lower';
}

type Bench = 'ingest' | 'stream' | 'analytics';

/** A row of a per-process CPU table: `  stream worker   5.46   0.22   27.3` → 27.3 (µs per listing). */
function cpuRow(block: string, process: string): number | undefined {
  const line = block.split('\n').find((l) => l.trimStart().startsWith(process));
  const cells = line?.trim().split(/\s+/);
  return cells ? Number(cells.at(-1)) : undefined;
}

function number(text: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : undefined;
}

export function parseFigures(bench: Bench, out: string): Figure[] {
  const found: (Figure | undefined)[] = [];
  const add = (name: string, value: number | undefined, better: Figure['better']) =>
    found.push(value === undefined || !Number.isFinite(value) ? undefined : { name, value, better });
  if (bench === 'ingest') {
    const api = number(out, /API CPU per accepted listing: ([\d.]+) µs/);
    const reference = number(out, /API CPU per accepted listing: [\d.]+ µs; reference ([\d.]+) µs/);
    add('ingest: API µs per accepted listing', api, 'lower');
    add('ingest: API CPU / Express + zod CPU, same run', api && reference && api / reference, 'lower');
    add(
      'ingest: API listings/s / Express + zod, same run (%)',
      number(out, /service \/ reference: ([\d.]+) %/),
      'higher',
    );
    const service = out.slice(out.indexOf('POST /api/v1/listings/bulk'));
    add('ingest: Redis µs per accepted listing', cpuRow(service, 'redis'), 'lower');
  } else if (bench === 'stream') {
    const alone = out.slice(out.indexOf('stream alone:'), out.indexOf('accepted '));
    const endToEnd = out.slice(out.indexOf('accepted '));
    add('stream alone: worker µs per listing', cpuRow(alone, 'stream worker'), 'lower');
    add('stream alone: all processes µs per listing', cpuRow(alone, 'total'), 'lower');
    add('end to end: API µs per stored listing', cpuRow(endToEnd, 'gateway (API)'), 'lower');
    add('end to end: worker µs per stored listing', cpuRow(endToEnd, 'stream worker'), 'lower');
    add('end to end: Redis µs per stored listing', cpuRow(endToEnd, 'redis'), 'lower');
    add('end to end: all processes µs per stored listing', number(out, /end to end: ([\d.]+) µs/), 'lower');
  } else {
    // The four answers with a latency goal, cold, the service code without HTTP.
    const coldP99 = (name: string) =>
      number(
        out,
        new RegExp(
          `${name} cold \\(miss → ClickHouse\\)\\s+n=\\s*\\d+\\s+p50\\s+[\\d.]+ ms\\s+p99\\s+([\\d.]+)`,
        ),
      );
    add('analytics: pricing p99 cold (ms)', coldP99('pricing'), 'lower');
    add(
      'analytics: heatmap Dar es Salaam p99 cold (ms)',
      number(
        out,
        /heatmap \(city box\) cold, Dar es Salaam only\s+n=\s*\d+\s+p50\s+[\d.]+ ms\s+p99\s+([\d.]+)/,
      ),
      'lower',
    );
    add('analytics: velocity p99 cold (ms)', coldP99('velocity'), 'lower');
    add('analytics: estimate p99 cold (ms)', coldP99('estimate'), 'lower');
  }
  const missing = found.filter((f) => !f).length;
  if (missing)
    throw new Error(`bench:check: ${missing} figure(s) of bench:${bench} not found in its printout`);
  return found as Figure[];
}
