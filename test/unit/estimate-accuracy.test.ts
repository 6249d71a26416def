// The backtest's figures (common/estimate/accuracy.ts) recomputed by hand on a small log: errors,
// the baseline, pooled levels and the interval calibration (published, and scored month by month
// with factors from the months before).
import { describe, expect, it } from 'vitest';
import { accuracyFigures, MIN_CALIBRATION, ResultLog } from '../../common/estimate/accuracy.ts';

const dar2 = { city: 'dar_es_salaam', type: 'apartment', bedrooms: '2' };
const dar3 = { city: 'dar_es_salaam', type: 'apartment', bedrooms: '3' };

describe('backtest figures', () => {
  it('happy: median APE, within 10/20 %, baseline and paired figures per segment', () => {
    const log = new ResultLog();
    // actual 100 each; estimates 95, 110, 125, none; baseline 150 for the first three, none last.
    log.push(dar2, 0, 100, 95, 150);
    log.push(dar2, 0, 100, 110, 150);
    log.push(dar2, 1, 100, 125, NaN);
    log.push(dar2, 1, 100, NaN, 80);
    const f = accuracyFigures(log).find((x) => x.level === 'segment')!;
    expect(f).toMatchObject({ subjects: 4, n: 3, baseline_n: 3, paired_n: 2 });
    expect(f.median_ape).toBeCloseTo(0.1); // 0.05, 0.10, 0.25
    expect(f.within_10pct).toBeCloseTo(2 / 3);
    expect(f.within_20pct).toBeCloseTo(2 / 3);
    expect(f.baseline_median_ape).toBeCloseTo(0.5); // 0.5, 0.5, 0.2
    expect(f.paired_median_ape).toBeCloseTo(0.075);
    expect(f.paired_baseline_median_ape).toBeCloseTo(0.5);
    // Too few estimates anywhere: no calibrated interval, coverage unknown.
    expect(f).toMatchObject({ interval_level: 'none', interval_coverage: null });
  });

  it('happy: pools city × type, type and all; a small segment borrows the first level with 30 estimates', () => {
    const log = new ResultLog();
    // 40 three-bedroom estimates over two months, residual ratios actual/estimate 0.80 … 1.19;
    // 5 two-bedroom ones.
    for (let i = 0; i < 40; i++) log.push(dar3, i % 2, 80 + i, 100, NaN);
    for (let i = 0; i < 5; i++) log.push(dar2, 0, 100, 100, NaN);
    const figures = accuracyFigures(log);
    const levels = figures.map((f) => `${f.level}:${f.city}|${f.property_type}|${f.bedrooms}`).sort();
    expect(levels).toEqual([
      'all:*|*|*',
      'city_type:dar_es_salaam|apartment|*',
      'segment:dar_es_salaam|apartment|2',
      'segment:dar_es_salaam|apartment|3',
      'type:*|apartment|*',
    ]);
    const three = figures.find((f) => f.bedrooms === '3')!;
    // Nearest rank over 40 sorted ratios: 10th percentile = 4th = 0.83, 90th = 36th = 1.15.
    expect(three.interval_level).toBe('segment');
    expect(three.interval_low).toBeCloseTo(0.83);
    expect(three.interval_high).toBeCloseTo(1.15);
    const two = figures.find((f) => f.bedrooms === '2')!;
    expect(two.interval_level).toBe('city_type'); // 5 < 30: the 45 of Dar apartments
    const pooled = figures.find((f) => f.level === 'city_type')!;
    expect([two.interval_low, two.interval_high]).toEqual([pooled.interval_low, pooled.interval_high]);
    expect(MIN_CALIBRATION).toBe(30);
  });

  it('edge: measures coverage with intervals from earlier months', () => {
    const log = new ResultLog();
    // Month 0: ratios 0.90 … 1.09 (30 of them); month 1: 30 at 1.5. Month 1's interval comes from
    // month 0 alone (0.92–1.07 by nearest rank): none of month 1 inside; month 0 has no earlier
    // month and is not scored. Published (both months) covers most of month 0.
    for (let i = 0; i < 30; i++) log.push(dar2, 0, 90 + (i * 20) / 30, 100, NaN);
    for (let i = 0; i < 30; i++) log.push(dar2, 1, 150, 100, NaN);
    const f = accuracyFigures(log).find((x) => x.level === 'segment')!;
    expect(f.interval_coverage).toBe(0);
    expect(f.interval_level).toBe('segment');
    expect(f.interval_high).toBeCloseTo(1.5);
  });

  it('edge: scores each month with factors from the months before it only, never from later ones', () => {
    const log = new ResultLog();
    // Months 0 and 1: ratios 0.90 … 1.09; month 2: 30 at 1.5 (the market moved). Month 1 is scored
    // with month 0's interval (about 0.91–1.07: 25 of 30 inside), month 2 with months 0–1's (none
    // inside), month 0 not at all: 25 of 60. Leaving one month out instead would score months 0 and
    // 1 with intervals that already knew month 2 (50 of 90).
    for (const month of [0, 1])
      for (let i = 0; i < 30; i++) log.push(dar2, month, 90 + (i * 20) / 30, 100, NaN);
    for (let i = 0; i < 30; i++) log.push(dar2, 2, 150, 100, NaN);
    const f = accuracyFigures(log).find((x) => x.level === 'segment')!;
    expect(f.interval_coverage).toBeGreaterThan(22 / 60);
    expect(f.interval_coverage).toBeLessThanOrEqual(25 / 60);
    // The published factors use every month: they are all before the month the endpoint serves.
    expect(f.interval_high).toBeCloseTo(1.5);
  });

  it('edge: an empty run still has its all row', () => {
    expect(accuracyFigures(new ResultLog())).toEqual([
      expect.objectContaining({ level: 'all', subjects: 0, n: 0, interval_level: 'none' }),
    ]);
  });
});
