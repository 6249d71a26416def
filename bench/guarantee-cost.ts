// bench:guarantees' list of guarantees and its table (bench/guarantees.ts runs them). Pure, so its
// selection and arithmetic are unit-tested.
import type { ServiceGuarantee } from '../common/bench-build.ts';
import type { OursOptions } from './stream-ours.ts';

/** Each guarantee measured: its name in BENCH_WITHOUT, its label in the table, and how it is left out. */
export const GUARANTEES = [
  { name: 'dedupe', label: 'duplicate detection', service: 'dedupe' },
  { name: 'owners', label: 'owners', service: 'owners' },
  { name: 'views', label: 'views and aggregates', detachViews: true },
  { name: 'images', label: 'image checks', options: { images: false } },
  { name: 'idempotency', label: 'idempotency', options: { idempotencyKeys: false } },
  { name: 'covered-sends', label: 'covered sends', service: 'covered-sends' },
] as const satisfies readonly {
  name: string;
  label: string;
  service?: ServiceGuarantee;
  detachViews?: boolean;
  options?: Partial<OursOptions>;
}[];
export type GuaranteeName = (typeof GUARANTEES)[number]['name'];

/** One run's figures: µs of CPU per stored listing (total and by process) and stored listings/s. */
export interface RunFigures {
  cpuTotal: number;
  cpuByProcess: Record<string, number>;
  storedPerSecond: number;
}

/** The guarantees BENCH_WITHOUT names (all when unset), refusing a name it does not know. */
export function selectedGuarantees(value: string | undefined): (typeof GUARANTEES)[number][] {
  if (!value) return [...GUARANTEES];
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !GUARANTEES.some((g) => g.name === n));
  if (unknown.length)
    throw new Error(
      `BENCH_WITHOUT: ${unknown.join(', ')} unknown; one or more of ${GUARANTEES.map((g) => g.name).join(', ')}`,
    );
  return GUARANTEES.filter((g) => names.includes(g.name));
}

/** The table: per guarantee, µs per stored listing with everything and without it, the difference, stored/s. */
export function guaranteeTable(
  everything: RunFigures,
  without: { label: string; figures: RunFigures }[],
): string[] {
  const width = Math.max(10, ...without.map((w) => w.label.length));
  const cell = (value: number, digits = 1) =>
    (Number.isFinite(value) ? value.toFixed(digits) : '—').padStart(10);
  return [
    'what each guarantee costs (CPU µs per stored listing, load + drain, all processes but the load generator):',
    `  ${'guarantee'.padEnd(width)} ${'with'.padStart(10)} ${'without'.padStart(10)} ${'difference'.padStart(10)} ${'stored/s with'.padStart(14)} ${'without'.padStart(10)}`,
    ...without.map(
      ({ label, figures }) =>
        `  ${label.padEnd(width)} ${cell(everything.cpuTotal)} ${cell(figures.cpuTotal)} ${cell(everything.cpuTotal - figures.cpuTotal)} ${cell(everything.storedPerSecond, 0).padStart(14)} ${cell(figures.storedPerSecond, 0)}`,
    ),
  ];
}
