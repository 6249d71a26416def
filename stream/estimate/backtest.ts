// The rolling-origin backtest of the rent estimate (docs/analytics.md, "Backtest"): for each of the
// last `months` complete months, every listing first listed that month is estimated from the
// listings listed before the month began (the origin), leaving out the listing itself and every
// listing with its fingerprint, by the same method.ts the endpoint runs, searched from the centre of
// the listing's cell as the endpoint searches. Its naive baseline is
// the median asking rent of the listing's segment (city × type × bedrooms) over the 90 days
// before the origin. The figures per segment go into estimate_accuracy as one run, which the
// endpoint reads. Both modes are backtested, each on its own listings.
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { propertyTypes } from '../../common/domain/listing.ts';
import { estimateAccuracyTable, type EstimateAccuracyRow } from '../../common/warehouse/estimate-accuracy.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import { accuracyFigures, median, ResultLog, type AccuracyFigures } from '../../common/estimate/accuracy.ts';
import { cities, loadComparables, type ComparableColumns } from './backtest-data.ts';
import {
  bedroomClass,
  estimateRent,
  MAX_AGE_DAYS,
  MAX_COMPARABLES,
  MAX_RADIUS_KM,
  MIN_COMPARABLES,
  RECENT_DAYS,
  SECONDS_PER_DAY,
  selectComparables,
  type Subject,
} from '../../common/estimate/method.ts';
import { NearestIndex } from './nearest-index.ts';
import { searchCentre } from '../../common/estimate/search-centre.ts';

export const DEFAULT_BACKTEST_MONTHS = 6;
/** Loading one mode and type (millions of listings at scale) takes longer than an API query may. */
export const BACKTEST_REQUEST_TIMEOUT_MS = 600_000;
/** The baseline's window before the origin. */
export const BASELINE_DAYS = 90;

export interface BacktestOptions {
  /** The months before this one (UTC) are backtested; default now. */
  asOf?: Date;
  months?: number;
  log?: (line: string) => void;
  /** Aborts the run between chunks (the worker shutting down); nothing is written then. */
  signal?: AbortSignal;
}

export interface BacktestReport {
  runId: string;
  runAt: string;
  fromMonth: string;
  toMonth: string;
  seconds: number;
  /** Figures per mode (every level), as written to estimate_accuracy. */
  live: AccuracyFigures[];
  test: AccuracyFigures[];
}

const monthStart = (year: number, month: number) => Date.UTC(year, month, 1) / 1000;
const isoDay = (epochSeconds: number) => new Date(epochSeconds * 1000).toISOString().slice(0, 10);
/** Lets the event loop run between chunks: the stream worker's consumers share the process. */
const breathe = () => new Promise((resolve) => setImmediate(resolve));

/** Origins (epoch seconds) of the `months` months before asOf's month, oldest first, and the end. */
export function backtestMonths(asOf: Date, months: number): { origins: number[]; end: number } {
  const y = asOf.getUTCFullYear();
  const m = asOf.getUTCMonth();
  const origins = Array.from({ length: months }, (_, i) => monthStart(y, m - months + i));
  return { origins, end: monthStart(y, m) };
}

export async function runBacktest(
  client: ClickHouseClient,
  options: BacktestOptions = {},
): Promise<BacktestReport> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const asOf = options.asOf ?? new Date();
  const { origins, end } = backtestMonths(asOf, options.months ?? DEFAULT_BACKTEST_MONTHS);
  const runId = randomUUID();
  const runAt = new Date().toISOString().slice(0, 19).replace('T', ' ');
  const figures: Record<'live' | 'test', AccuracyFigures[]> = { live: [], test: [] };
  for (const mode of ['live', 'test'] as const) {
    const results = new ResultLog();
    for (const type of propertyTypes) {
      const t0 = performance.now();
      const cols = await loadComparables(client, {
        isTest: mode === 'test',
        type,
        from: new Date((origins[0]! - MAX_AGE_DAYS * SECONDS_PER_DAY) * 1000),
        to: new Date(end * 1000),
      });
      if (!cols.length) continue;
      const before = results.length;
      await backtestType(cols, type, origins, end, results, options.signal);
      log(
        `${mode} ${type}: ${cols.length} listings loaded, ${results.length - before} estimated ` +
          `(${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
    }
    figures[mode] = accuracyFigures(results);
  }
  const rows = (['live', 'test'] as const).flatMap((mode) =>
    figures[mode].map(({ level: _level, ...segment }): EstimateAccuracyRow => ({
      run_id: runId,
      run_at: runAt,
      is_test: mode === 'test' ? 1 : 0,
      from_month: isoDay(origins[0]!),
      to_month: isoDay(origins[origins.length - 1]!),
      ...segment,
    })),
  );
  // One insert: a run is visible whole or not at all.
  await insertRows(client, estimateAccuracyTable, rows);
  return {
    runId,
    runAt,
    fromMonth: isoDay(origins[0]!),
    toMonth: isoDay(origins[origins.length - 1]!),
    seconds: (performance.now() - started) / 1000,
    ...figures,
  };
}

async function backtestType(
  cols: ComparableColumns,
  type: string,
  origins: number[],
  end: number,
  results: ResultLog,
  signal?: AbortSignal,
): Promise<void> {
  const index = new NearestIndex(cols);
  for (let month = 0; month < origins.length; month++) {
    const origin = origins[month]!;
    const next = origins[month + 1] ?? end;
    const baseline = baselineMedians(cols, origin - BASELINE_DAYS * SECONDS_PER_DAY, origin);
    const first = firstListedAt(cols, origin);
    const last = firstListedAt(cols, next);
    for (let r = first; r < last; r++) {
      if ((r - first) % 2_000 === 1_999) {
        await breathe();
        signal?.throwIfAborted();
      }
      // Searched from the cell's centre, as the endpoint searches: the accuracy and the interval
      // published with every answer are measured on the answers it gives.
      const centre = searchCentre(cols.latitude[r]!, cols.longitude[r]!);
      const subject: Subject = {
        latitude: centre.latitude,
        longitude: centre.longitude,
        bedrooms: cols.bedrooms[r]! < 0 ? null : cols.bedrooms[r]!,
        bathrooms: cols.bathrooms[r]! < 0 ? null : cols.bathrooms[r]!,
        areaSqm: Number.isNaN(cols.areaSqm[r]!) ? null : cols.areaSqm[r]!,
      };
      const query = {
        latitude: subject.latitude,
        longitude: subject.longitude,
        bedrooms: subject.bedrooms,
        areaSqm: subject.areaSqm,
        to: origin,
        reference: origin,
        excludeHi: cols.fingerprintHi[r]!,
        excludeLo: cols.fingerprintLo[r]!,
        limit: MAX_COMPARABLES,
        maxKm: MAX_RADIUS_KM,
      };
      const recent = index.nearest({ ...query, from: origin - RECENT_DAYS * SECONDS_PER_DAY });
      let selection = selectComparables({ recent, searchedKm: MAX_RADIUS_KM });
      if (selection.kind === 'needs_older') {
        const all = index.nearest({ ...query, from: origin - MAX_AGE_DAYS * SECONDS_PER_DAY });
        selection = selectComparables({ recent, all, searchedKm: MAX_RADIUS_KM });
      }
      const estimate =
        selection.kind === 'found' ? estimateRent(subject, selection.used, selection.step).rentTzs : NaN;
      const segment = { city: cities[cols.city[r]!]!, type, bedrooms: bedroomClass(subject.bedrooms) };
      const key = `${segment.city}|${segment.bedrooms}`;
      results.push(segment, month, cols.priceTzs[r]!, estimate, baseline.get(key) ?? NaN);
    }
  }
}

/** First row listed at or after `at` (rows are in listed_at order). */
function firstListedAt(cols: ComparableColumns, at: number): number {
  let lo = 0;
  let hi = cols.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cols.listedAt[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Median asking rent per city × bedrooms (of this type) listed in [from, to); at least 5 listings. */
function baselineMedians(cols: ComparableColumns, from: number, to: number): Map<string, number> {
  const prices = new Map<string, number[]>();
  for (let r = firstListedAt(cols, from); r < cols.length && cols.listedAt[r]! < to; r++) {
    const key = `${cities[cols.city[r]!]}|${bedroomClass(cols.bedrooms[r]! < 0 ? null : cols.bedrooms[r]!)}`;
    let list = prices.get(key);
    if (!list) prices.set(key, (list = []));
    list.push(cols.priceTzs[r]!);
  }
  const medians = new Map<string, number>();
  for (const [key, list] of prices) if (list.length >= MIN_COMPARABLES) medians.set(key, median(list)!);
  return medians;
}
