// Order statistics over counted values (value, how many) and the Kaplan–Meier median: the days-on-
// market figures of velocity and seasonality (docs/analytics.md, "Listing lifecycle metrics").
// Pure functions, so tests recompute every figure by hand.

/** [value, count] pairs; counts may arrive split over several pairs of one value. */
export type Counted = readonly (readonly [value: number, count: number])[];

function sorted(values: Counted): [number, number][] {
  const merged = new Map<number, number>();
  for (const [value, count] of values) merged.set(value, (merged.get(value) ?? 0) + count);
  return [...merged].filter(([, count]) => count > 0).sort((a, b) => a[0] - b[0]);
}

export function total(values: Counted): number {
  return values.reduce((sum, [, count]) => sum + Math.max(0, count), 0);
}

/** The k-th smallest value (1-based) of the multiset. */
function kth(values: [number, number][], k: number): number {
  let seen = 0;
  for (const [value, count] of values) {
    seen += count;
    if (seen >= k) return value;
  }
  throw new Error(`rank ${k} beyond ${seen} values`);
}

/** Exact median: the middle value, or the mean of the two middle values; null when empty. */
export function median(values: Counted): number | null {
  const s = sorted(values);
  const n = total(s);
  if (n === 0) return null;
  return (kth(s, Math.ceil(n / 2)) + kth(s, Math.floor(n / 2) + 1)) / 2;
}

/** Nearest-rank quantile: the ⌈p·n⌉-th smallest value (p in (0, 1]); null when empty. */
export function nearestRank(values: Counted, p: number): number | null {
  const s = sorted(values);
  const n = total(s);
  if (n === 0) return null;
  return kth(s, Math.max(1, Math.ceil(p * n)));
}

/** Durations with how many ended in the event (rented) and how many were censored at that duration. */
export interface SurvivalPoint {
  days: number;
  events: number;
  censored: number;
}

/**
 * Kaplan–Meier median time to the event: S(t) = Π over event times tᵢ ≤ t of (1 − dᵢ/nᵢ), where
 * nᵢ is the number still at risk at tᵢ (durations ≥ tᵢ: a listing censored at tᵢ still counts
 * as at risk at tᵢ) and dᵢ the events at tᵢ; the median is the smallest t with S(t) ≤ 0.5, null
 * when the curve never gets there (fewer than half rented, even after accounting for censoring).
 */
export function kaplanMeierMedian(points: readonly SurvivalPoint[]): number | null {
  const byDay = new Map<number, { events: number; censored: number }>();
  for (const p of points) {
    const entry = byDay.get(p.days) ?? { events: 0, censored: 0 };
    entry.events += p.events;
    entry.censored += p.censored;
    byDay.set(p.days, entry);
  }
  const days = [...byDay.keys()].sort((a, b) => a - b);
  let atRisk = [...byDay.values()].reduce((sum, e) => sum + e.events + e.censored, 0);
  let survival = 1;
  for (const day of days) {
    const { events, censored } = byDay.get(day)!;
    if (events > 0 && atRisk > 0) {
      survival *= 1 - events / atRisk;
      // Exact comparison is safe to a rounding error only; 1e-12 keeps 0.5 itself a median.
      if (survival <= 0.5 + 1e-12) return day;
    }
    atRisk -= events + censored;
  }
  return null;
}
