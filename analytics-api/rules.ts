// The documented rules behind the analytics numbers (docs/analytics.md). Pure functions, so unit
// tests and integration tests can recompute every figure by hand.

/** Trend: the neighbourhood median must move by more than this fraction against the previous quarter. */
export const TREND_THRESHOLD = 0.05;
/** Trend: both quarters need at least this many listings in the neighbourhood, else insufficient_data. */
export const TREND_MIN_LISTINGS = 10;

export const trends = ['rising', 'stable', 'falling', 'insufficient_data'] as const;
export type Trend = (typeof trends)[number];

export function trendOf(
  current: { median: number; count: number },
  previous: { median: number; count: number },
): Trend {
  if (current.count < TREND_MIN_LISTINGS || previous.count < TREND_MIN_LISTINGS) return 'insufficient_data';
  if (!(previous.median > 0)) return 'insufficient_data';
  const change = (current.median - previous.median) / previous.median;
  if (change > TREND_THRESHOLD) return 'rising';
  if (change < -TREND_THRESHOLD) return 'falling';
  return 'stable';
}

/** Views per listing; 0 when there are no listings (nothing to divide by). */
export function viewsPerListing(views: number, listings: number): number {
  return listings > 0 ? views / listings : 0;
}

/**
 * Demand score: views per listing of the area ÷ views per listing of the whole market (all ten
 * cities, same mode, period and property type filter). 1.0 = market average, 2.0 = twice the
 * attention per listing; 0 when the market has no views. Comparable across cities by construction.
 */
export function demandScore(
  area: { views: number; listings: number },
  market: { views: number; listings: number },
): number {
  const marketRate = viewsPerListing(market.views, market.listings);
  if (marketRate === 0) return 0;
  return viewsPerListing(area.views, area.listings) / marketRate;
}

/** Rounding of published decimals: prices to 2 places, ratios to 3. */
export const round2 = (value: number): number => Math.round(value * 100) / 100;
export const round3 = (value: number): number => Math.round(value * 1000) / 1000;
