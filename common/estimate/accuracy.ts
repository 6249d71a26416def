// The backtest's figures from its per-listing results: accuracy per segment (city × type ×
// bedrooms) and pooled levels, the naive baseline's, and the interval calibration. Pure: the
// integration tests recompute them by hand.
//
// Interval: the residual of a listing is ln(actual / estimate); a level's interval factors are
// exp of the 10th and 90th percentiles of its residuals (an 80 % interval), taken from the first
// level of the listing's chain (segment → city × type → type → all) with at least
// MIN_CALIBRATION estimates. The published factors use every backtested month, all of them before
// the month the endpoint applies them to; the measured coverage does the same month by month:
// each month's listings are scored with factors from the months before it only (the first month
// is not scored), so it is the coverage the next month gets, never a fit that has seen the month.
import type { EstimateAccuracyRow } from '../warehouse/estimate-accuracy.ts';
import { INTERVAL_TARGET } from './method.ts';

export const MIN_CALIBRATION = 30;
export const levels = ['segment', 'city_type', 'type', 'all'] as const;
export type Level = (typeof levels)[number];

export interface Segment {
  city: string;
  type: string;
  bedrooms: string;
}

/** The keys of a segment's chain, finest first: segment, city × type, type, all. */
export function chainOf(s: Segment): string[] {
  return [`${s.city}|${s.type}|${s.bedrooms}`, `${s.city}|${s.type}|*`, `*|${s.type}|*`, '*|*|*'];
}

/** One mode's per-listing results; estimate/baseline NaN when the method could not estimate. */
export class ResultLog {
  readonly segments: Segment[] = [];
  private readonly segmentIds = new Map<string, number>();
  segment: number[] = [];
  month: number[] = [];
  actual: number[] = [];
  estimate: number[] = [];
  baseline: number[] = [];

  push(segment: Segment, month: number, actual: number, estimate: number, baseline: number): void {
    const key = chainOf(segment)[0]!;
    let id = this.segmentIds.get(key);
    if (id === undefined) {
      id = this.segments.length;
      this.segments.push(segment);
      this.segmentIds.set(key, id);
    }
    this.segment.push(id);
    this.month.push(month);
    this.actual.push(actual);
    this.estimate.push(estimate);
    this.baseline.push(baseline);
  }

  get length(): number {
    return this.actual.length;
  }
}

/** One segment's figures: a row of `estimate_accuracy` without the run's fields, with its level. */
export type AccuracyFigures = Omit<
  EstimateAccuracyRow,
  'run_id' | 'run_at' | 'is_test' | 'from_month' | 'to_month' | 'interval_level'
> & { level: Level; interval_level: Level | 'none' };

export const ape = (actual: number, predicted: number): number => Math.abs(predicted - actual) / actual;

/** Exact median: the middle value, or the mean of the two middle values. */
export function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const share = (values: number[], limit: number): number | null =>
  values.length ? values.filter((v) => v <= limit).length / values.length : null;

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
const LOW_P = (1 - INTERVAL_TARGET) / 2;
const HIGH_P = 1 - LOW_P;

type Factors = { low: number; high: number };
/** Residuals, ln(actual / estimate), by chain key and month. */
type Residuals = Map<string, Map<number, number[]>>;

function factors(residuals: number[]): Factors {
  const sorted = Float64Array.from(residuals).sort();
  return { low: Math.exp(percentile(sorted, LOW_P)), high: Math.exp(percentile(sorted, HIGH_P)) };
}

export function accuracyFigures(log: ResultLog): AccuracyFigures[] {
  const chains = log.segments.map(chainOf);
  const { members, residuals } = indexByKey(log, chains);
  const calibration = calibrationOf(residuals);
  const covered = coverage(log, chains, calibration.beforeMonth);
  const figures = [...members].map(([key, list]) =>
    keyFigures(key, list, log, covered, calibration.published),
  );
  // A run always has its 'all' row, so the endpoint can tell "measured, nothing to measure" from
  // "never measured".
  if (!figures.length) figures.push(emptyFigures());
  return figures;
}

/** The listings of every chain key, and the residuals of those with an estimate, by key and month. */
function indexByKey(
  log: ResultLog,
  chains: string[][],
): { members: Map<string, number[]>; residuals: Residuals } {
  const members = new Map<string, number[]>();
  const residuals: Residuals = new Map();
  for (let i = 0; i < log.length; i++) {
    const estimated = !Number.isNaN(log.estimate[i]!);
    for (const key of chains[log.segment[i]!]!) {
      let list = members.get(key);
      if (!list) members.set(key, (list = []));
      list.push(i);
      if (!estimated) continue;
      let byMonth = residuals.get(key);
      if (!byMonth) residuals.set(key, (byMonth = new Map()));
      let month = byMonth.get(log.month[i]!);
      if (!month) byMonth.set(log.month[i]!, (month = []));
      month.push(Math.log(log.actual[i]! / log.estimate[i]!));
    }
  }
  return { members, residuals };
}

/**
 * A key's interval factors (null under MIN_CALIBRATION residuals), each computed once: `published`
 * from every month, `beforeMonth` from the months before `month` only.
 */
function calibrationOf(residuals: Residuals) {
  const fit = (values: number[]) => (values.length >= MIN_CALIBRATION ? factors(values) : null);
  const published = new Map<string, Factors | null>();
  const beforeMonth = new Map<string, Factors | null>();
  return {
    published(key: string): Factors | null {
      if (!published.has(key)) published.set(key, fit([...(residuals.get(key)?.values() ?? [])].flat()));
      return published.get(key)!;
    },
    beforeMonth(key: string, month: number): Factors | null {
      const memo = `${key}#${month}`;
      if (!beforeMonth.has(memo)) {
        const values = [...(residuals.get(key) ?? new Map<number, number[]>()).entries()]
          .filter(([m]) => m < month)
          .flatMap(([, v]) => v);
        beforeMonth.set(memo, fit(values));
      }
      return beforeMonth.get(memo)!;
    },
  };
}

/** Per estimated listing: inside the interval of the months before its own (1), outside (0), none (-1). */
function coverage(
  log: ResultLog,
  chains: string[][],
  beforeMonth: (key: string, month: number) => Factors | null,
): Int8Array {
  const covered = new Int8Array(log.length).fill(-1);
  for (let i = 0; i < log.length; i++) {
    if (Number.isNaN(log.estimate[i]!)) continue;
    for (const key of chains[log.segment[i]!]!) {
      const f = beforeMonth(key, log.month[i]!);
      if (!f) continue;
      const ratio = log.actual[i]! / log.estimate[i]!;
      covered[i] = ratio >= f.low && ratio <= f.high ? 1 : 0;
      break;
    }
  }
  return covered;
}

/** The errors of one key's listings: the method's, the baseline's, both where both estimated. */
function errorsOf(list: number[], log: ResultLog, covered: Int8Array) {
  const errors = {
    estimate: [] as number[],
    baseline: [] as number[],
    pairedEstimate: [] as number[],
    pairedBaseline: [] as number[],
    covered: 0,
    calibrated: 0,
  };
  for (const i of list) {
    const actual = log.actual[i]!;
    const e = log.estimate[i]!;
    const b = log.baseline[i]!;
    if (!Number.isNaN(e)) errors.estimate.push(ape(actual, e));
    if (!Number.isNaN(b)) errors.baseline.push(ape(actual, b));
    if (!Number.isNaN(e) && !Number.isNaN(b)) {
      errors.pairedEstimate.push(ape(actual, e));
      errors.pairedBaseline.push(ape(actual, b));
    }
    if (covered[i]! >= 0) {
      errors.calibrated++;
      errors.covered += covered[i]!;
    }
  }
  return errors;
}

/** One row: a chain key's accuracy, its baseline's, and its published interval. */
function keyFigures(
  key: string,
  list: number[],
  log: ResultLog,
  covered: Int8Array,
  published: (key: string) => Factors | null,
): AccuracyFigures {
  const [city, type, bedrooms] = key.split('|') as [string, string, string];
  const level: Level =
    bedrooms !== '*' ? 'segment' : city !== '*' ? 'city_type' : type !== '*' ? 'type' : 'all';
  const errors = errorsOf(list, log, covered);
  // This row's published interval: its own key or the first coarser one with enough estimates.
  const chain = chainOf({ city, type, bedrooms }).slice(levels.indexOf(level));
  const source = chain.find((k) => published(k) !== null);
  const interval = source ? published(source)! : null;
  return {
    city,
    property_type: type,
    bedrooms,
    level,
    subjects: list.length,
    n: errors.estimate.length,
    median_ape: median(errors.estimate),
    within_10pct: share(errors.estimate, 0.1),
    within_20pct: share(errors.estimate, 0.2),
    interval_target: INTERVAL_TARGET,
    interval_coverage: errors.calibrated ? errors.covered / errors.calibrated : null,
    interval_low: interval?.low ?? 1,
    interval_high: interval?.high ?? 1,
    interval_level: source ? levels[levels.indexOf(level) + chain.indexOf(source)]! : 'none',
    baseline_n: errors.baseline.length,
    baseline_median_ape: median(errors.baseline),
    baseline_within_10pct: share(errors.baseline, 0.1),
    baseline_within_20pct: share(errors.baseline, 0.2),
    paired_n: errors.pairedEstimate.length,
    paired_median_ape: median(errors.pairedEstimate),
    paired_baseline_median_ape: median(errors.pairedBaseline),
  };
}

function emptyFigures(): AccuracyFigures {
  return {
    city: '*',
    property_type: '*',
    bedrooms: '*',
    level: 'all',
    subjects: 0,
    n: 0,
    median_ape: null,
    within_10pct: null,
    within_20pct: null,
    interval_target: INTERVAL_TARGET,
    interval_coverage: null,
    interval_low: 1,
    interval_high: 1,
    interval_level: 'none',
    baseline_n: 0,
    baseline_median_ape: null,
    baseline_within_10pct: null,
    baseline_within_20pct: null,
    paired_n: 0,
    paired_median_ape: null,
    paired_baseline_median_ape: null,
  };
}
