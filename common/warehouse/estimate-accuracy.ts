// `estimate_accuracy` (migration 0091): the backtest's figures per run, mode and segment, written
// by stream/estimate/backtest.ts in one insert per run; the estimate endpoint reads the latest run.
import { defineTable, type DateTimeText } from './table.ts';

export type EstimateAccuracyRow = {
  run_id: string;
  run_at: DateTimeText;
  is_test: 0 | 1;
  /** City slug, '' (outside the ten cities) or '*' (all). */
  city: string;
  /** Property type or '*'. */
  property_type: string;
  /** '0'…'4', '5+', 'unknown' or '*'. */
  bedrooms: string;
  from_month: string;
  to_month: string;
  subjects: number;
  n: number;
  median_ape: number | null;
  within_10pct: number | null;
  within_20pct: number | null;
  interval_target: number;
  interval_coverage: number | null;
  interval_low: number;
  interval_high: number;
  interval_level: string;
  baseline_n: number;
  baseline_median_ape: number | null;
  baseline_within_10pct: number | null;
  baseline_within_20pct: number | null;
  paired_n: number;
  paired_median_ape: number | null;
  paired_baseline_median_ape: number | null;
};

export const estimateAccuracyTable = defineTable<EstimateAccuracyRow>()('estimate_accuracy', [
  'run_id',
  'run_at',
  'is_test',
  'city',
  'property_type',
  'bedrooms',
  'from_month',
  'to_month',
  'subjects',
  'n',
  'median_ape',
  'within_10pct',
  'within_20pct',
  'interval_target',
  'interval_coverage',
  'interval_low',
  'interval_high',
  'interval_level',
  'baseline_n',
  'baseline_median_ape',
  'baseline_within_10pct',
  'baseline_within_20pct',
  'paired_n',
  'paired_median_ape',
  'paired_baseline_median_ape',
]);
