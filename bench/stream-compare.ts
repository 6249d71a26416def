// bench:stream's side-by-side table of our pipeline and the peer's (bench/peer/): the same figures of
// each, measured in the same run, and ours ÷ peer. Pure, so its arithmetic is unit-tested.

/** What bench:stream measures of one pipeline. */
export interface PipelineFigures {
  /** Listings accepted per second of the load phase (201s). */
  acceptedPerSecond: number;
  /** Listings accepted ÷ seconds from the first request until all of them were stored (load + drain). */
  storedPerSecond: number;
  /** µs of CPU per stored listing by process name, as printCpuTable returns them, over load + drain. */
  cpuByProcess: Record<string, number>;
  /** µs per stored listing of the processes counted (not the load generator). */
  cpuTotal: number;
  /** 201 → stored, ms, of the full-load phase's requests. */
  fullLoad: { p50: number; p95: number };
  /** The same at a paced rate, when that phase ran. */
  paced?: { listingsPerSecond: number; p50: number; p95: number };
  /** With BENCH_PACED_SEARCH: the highest rate tried whose freshness p95 stayed ≤ 1 s (NaN: none). */
  highestPacedRate?: number;
  /** That rate's phase: listings/s accepted (÷ seconds posting) and stored (÷ seconds until all stored), freshness. */
  highestPaced?: { acceptedPerSecond: number; storedPerSecond: number; p50: number; p95: number };
}

/** The figures of a paced phase that PipelineFigures.highestPaced keeps. */
export function pickPaced(
  phase: NonNullable<PipelineFigures['highestPaced']>,
): PipelineFigures['highestPaced'] {
  const { acceptedPerSecond, storedPerSecond, p50, p95 } = phase;
  return { acceptedPerSecond, storedPerSecond, p50, p95 };
}

/** Rows of the CPU part: a label and the process names (prefixes: `clickhouse` takes its child) summed in it. */
export const CPU_ROWS: [label: string, ours: string[], peer: string[]][] = [
  ['API process', ['gateway (API)'], ['peer API']],
  ['consumer process', ['stream worker'], ['peer consumer']],
  ['image process', ['image process'], []],
  ['ClickHouse', ['clickhouse'], ['clickhouse']],
  ['Kafka', ['kafka'], ['kafka']],
  ['Redis', ['redis'], []],
];

/** The sum of the entries of `byProcess` whose name starts with one of `prefixes`; undefined when none does. */
export function cpuOf(byProcess: Record<string, number>, prefixes: string[]): number | undefined {
  const values = Object.entries(byProcess)
    .filter(([name]) => prefixes.some((prefix) => name.startsWith(prefix)))
    .map(([, micros]) => micros);
  return values.length ? values.reduce((a, b) => a + b, 0) : undefined;
}

/** ours ÷ peer to two decimals, or "—" when either is missing, not finite or the peer's is 0. */
export function ratio(ours: number | undefined, peer: number | undefined): string {
  if (
    ours === undefined ||
    peer === undefined ||
    !Number.isFinite(ours) ||
    !Number.isFinite(peer) ||
    peer === 0
  )
    return '—';
  return (ours / peer).toFixed(2);
}

/**
 * The run's figures as one line of JSON, last in bench:stream's output so runs are collected with
 * `grep '^BENCH_SUMMARY '`: each pipeline measured, ours ÷ peer of the headline figures. Numbers
 * rounded to one decimal; NaN (not measured) is null.
 */
export function summaryLine(figures: { ours?: PipelineFigures; peer?: PipelineFigures }): string {
  const { ours, peer } = figures;
  const ratios =
    ours && peer
      ? {
          acceptedPerSecond: ratio(ours.acceptedPerSecond, peer.acceptedPerSecond),
          storedPerSecond: ratio(ours.storedPerSecond, peer.storedPerSecond),
          cpuTotal: ratio(ours.cpuTotal, peer.cpuTotal),
          highestPacedRate: ratio(ours.highestPacedRate, peer.highestPacedRate),
        }
      : undefined;
  const round = (_: string, value: unknown) =>
    typeof value === 'number' ? (Number.isFinite(value) ? Math.round(value * 10) / 10 : null) : value;
  return `BENCH_SUMMARY ${JSON.stringify({ ours, peer, oursPerPeer: ratios }, round)}`;
}

/** The printed lines: a header, then one row per figure with ours, the peer's and ours ÷ peer. */
export function sideBySide(ours: PipelineFigures, peer: PipelineFigures): string[] {
  const rows: [string, number | undefined, number | undefined, number][] = [
    ['accepted listings/s', ours.acceptedPerSecond, peer.acceptedPerSecond, 0],
    ['stored listings/s (load + drain)', ours.storedPerSecond, peer.storedPerSecond, 0],
    ...CPU_ROWS.map(
      ([label, o, p]) =>
        [`CPU µs/stored listing: ${label}`, cpuOf(ours.cpuByProcess, o), cpuOf(peer.cpuByProcess, p), 1] as [
          string,
          number | undefined,
          number | undefined,
          number,
        ],
    ),
    ['CPU µs/stored listing: total', ours.cpuTotal, peer.cpuTotal, 1],
    ['freshness p50 at full load (ms)', ours.fullLoad.p50, peer.fullLoad.p50, 0],
    ['freshness p95 at full load (ms)', ours.fullLoad.p95, peer.fullLoad.p95, 0],
  ];
  if (ours.paced && peer.paced) {
    const rates =
      ours.paced.listingsPerSecond === peer.paced.listingsPerSecond
        ? `${ours.paced.listingsPerSecond.toFixed(0)} listings/s`
        : `${ours.paced.listingsPerSecond.toFixed(0)} / ${peer.paced.listingsPerSecond.toFixed(0)} listings/s`;
    rows.push(
      [`freshness p50 paced at ${rates} (ms)`, ours.paced.p50, peer.paced.p50, 0],
      [`freshness p95 paced at ${rates} (ms)`, ours.paced.p95, peer.paced.p95, 0],
    );
  }
  if (ours.highestPacedRate !== undefined && peer.highestPacedRate !== undefined)
    rows.push([
      'highest paced listings/s, freshness p95 ≤ 1 s',
      ours.highestPacedRate,
      peer.highestPacedRate,
      0,
    ]);
  if (ours.highestPaced || peer.highestPaced)
    rows.push(
      [
        'at that rate: accepted listings/s',
        ours.highestPaced?.acceptedPerSecond,
        peer.highestPaced?.acceptedPerSecond,
        0,
      ],
      [
        'at that rate: stored listings/s (paced + drain)',
        ours.highestPaced?.storedPerSecond,
        peer.highestPaced?.storedPerSecond,
        0,
      ],
      ['at that rate: freshness p50 (ms)', ours.highestPaced?.p50, peer.highestPaced?.p50, 0],
      ['at that rate: freshness p95 (ms)', ours.highestPaced?.p95, peer.highestPaced?.p95, 0],
    );
  const width = Math.max(...rows.map(([label]) => label.length));
  const cell = (value: number | undefined, digits: number) =>
    (value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits)).padStart(10);
  return [
    'ours vs peer (same run, same Kafka and ClickHouse, same load generator):',
    `  ${''.padEnd(width)} ${'ours'.padStart(10)} ${'peer'.padStart(10)} ${'ours ÷ peer'.padStart(12)}`,
    ...rows.map(
      ([label, o, p, digits]) =>
        `  ${label.padEnd(width)} ${cell(o, digits)} ${cell(p, digits)} ${ratio(o, p).padStart(12)}`,
    ),
  ];
}
