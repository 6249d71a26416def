// bench:guarantees' selection of the guarantees to measure and its table (bench/guarantee-cost.ts).
import { describe, expect, it } from 'vitest';
import { GUARANTEES, guaranteeTable, selectedGuarantees } from '../../bench/guarantee-cost.ts';
import { SERVICE_GUARANTEES } from '../../common/bench-build.ts';

describe('bench:guarantees', () => {
  it('measures every guarantee unless BENCH_WITHOUT names some, and refuses a name it does not know', () => {
    expect(selectedGuarantees(undefined).map((g) => g.name)).toEqual([
      'dedupe',
      'owners',
      'views',
      'images',
      'idempotency',
      'covered-sends',
    ]);
    expect(selectedGuarantees(' views ,dedupe').map((g) => g.name)).toEqual(['dedupe', 'views']);
    expect(() => selectedGuarantees('dedupe,quota')).toThrow(/BENCH_WITHOUT: quota unknown/);
  });

  it('turns off in a service only what a benchmark build of it accepts', () => {
    const services = GUARANTEES.flatMap((g) => ('service' in g ? [g.service] : []));
    expect(services.sort()).toEqual([...SERVICE_GUARANTEES].sort());
  });

  it('prints with, without and their difference per guarantee, a dash for a figure not measured', () => {
    const everything = { cpuTotal: 120, cpuByProcess: {}, storedPerSecond: 9_000 };
    const lines = guaranteeTable(everything, [
      { label: 'owners', figures: { cpuTotal: 108.5, cpuByProcess: {}, storedPerSecond: 9_600 } },
      { label: 'image checks', figures: { cpuTotal: Number.NaN, cpuByProcess: {}, storedPerSecond: 9_100 } },
    ]);
    const row = (label: string) =>
      lines
        .find((l) => l.trimStart().startsWith(label))
        ?.trim()
        .split(/\s{2,}/);
    expect(row('owners')).toEqual(['owners', '120.0', '108.5', '11.5', '9000', '9600']);
    expect(row('image checks')).toEqual(['image checks', '120.0', '—', '—', '9000', '9100']);
  });
});
