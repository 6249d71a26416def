// The backtest's figures for an estimate's segment (city × type × bedrooms) and the interval
// factors that calibrate it, from the latest run in estimate_accuracy. A run changes once a day,
// and every estimate needs it: each process keeps the latest run of each mode in memory for the
// analytics cache's lifetime (one small query per mode per TTL instead of one per request).
import type { ClickHouseClient } from '@clickhouse/client';
import type { PropertyType } from '../../common/domain/listing.ts';
import type { AccuracyAnswer } from '../answers/estimate.ts';
import { chainOf, type Level } from '../../common/estimate/accuracy.ts';
import type { BedroomClass } from '../../common/estimate/method.ts';
import { latestAccuracy, type AccuracyRow } from '../queries/estimate.ts';
import { round3 } from '../rules.ts';

export interface SegmentAccuracy {
  answer: AccuracyAnswer;
  /** Multiply the estimate by these for its interval; null when no backtest calibrated one. */
  interval: { low: number; high: number } | null;
}

export interface AccuracySource {
  forSegment(
    isTest: boolean,
    segment: { city: string; type: PropertyType; bedrooms: BedroomClass },
  ): Promise<SegmentAccuracy>;
}

export function accuracySource(clickhouse: ClickHouseClient, ttlSeconds: number): AccuracySource {
  const runs = new Map<boolean, { at: number; rows: Promise<Map<string, AccuracyRow>> }>();
  const latest = (isTest: boolean) => {
    const cached = runs.get(isTest);
    if (cached && Date.now() - cached.at < ttlSeconds * 1000) return cached.rows;
    const rows = latestAccuracy
      .run(clickhouse, { isTest })
      .then(({ rows }) => new Map(rows.map((r) => [`${r.city}|${r.property_type}|${r.bedrooms}`, r])));
    runs.set(isTest, { at: Date.now(), rows });
    rows.catch(() => runs.delete(isTest)); // a failure is not cached
    return rows;
  };
  return {
    async forSegment(isTest, segment) {
      const rows = await latest(isTest);
      const chain = chainOf(segment).map((key) => rows.get(key));
      const own = chain[0];
      const calibrated = chain.find((row) => row && row.interval_level !== 'none');
      const any = chain.find((row) => row !== undefined);
      const figure = (v: number | null | undefined) => (v === null || v === undefined ? null : round3(v));
      return {
        interval: calibrated ? { low: calibrated.interval_low, high: calibrated.interval_high } : null,
        answer: {
          segment: { city: segment.city || null, property_type: segment.type, bedrooms: segment.bedrooms },
          n: own?.n ?? 0,
          median_ape: figure(own?.median_ape),
          within_10pct: figure(own?.within_10pct),
          within_20pct: figure(own?.within_20pct),
          interval_coverage: figure(own?.interval_coverage),
          interval_target: any?.interval_target ?? null,
          baseline_median_ape: figure(own?.baseline_median_ape),
          baseline_within_10pct: figure(own?.baseline_within_10pct),
          interval_calibration: (calibrated?.interval_level as Level | undefined) ?? 'none',
          backtest: any ? { run_at: any.run_at, from_month: any.from_month, to_month: any.to_month } : null,
        },
      };
    },
  };
}
