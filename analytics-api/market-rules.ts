// The documented rules of the lifecycle endpoints (docs/analytics.md, "Listing lifecycle metrics"):
// how few observations suppress a figure, how market share protects competitors, how rents are
// mix-adjusted and how the month-of-year index is built. Pure functions, recomputed by the tests.
import { discloses, type Behind } from './suppression.ts';

/** Medians of days on market need this many exits of the kind, quartiles this many. */
export const MIN_EXITS_FOR_MEDIAN = 10;
export const MIN_EXITS_FOR_QUARTILES = 30;

/** The rule version named in the velocity answer's `definition`. */
export const VELOCITY_DEFINITION =
  "rls-velocity-1: days on market = whole days from the start of the listing's spell (listed_at, " +
  'or a relist more than 30 days after it left) to its exit (the at of rented, withdrawn or ' +
  'expired); a return within 30 days continues the spell and undoes the exit. Exits count in the ' +
  'quarter of their at. Medians from 10 exits, quartiles (nearest rank) from 30, else null and ' +
  'suppressed. Kaplan-Meier: spells started in the period, rented = event, withdrawn/expired/still ' +
  'on the market = censored (today for open spells). Absorption = rented / average daily stock.';

/**
 * One market-share figure: the account's own count always shows; the market figure and the share
 * only when the rules of ./suppression.ts allow (`shown`: the rule and, for parts of a total, the
 * complementary rule).
 */
export function shareFigure(
  f: Behind,
  shown = !discloses(f),
): {
  own: number;
  market: number | null;
  share: number | null;
  suppressed: boolean;
} {
  if (!shown) return { own: f.own, market: null, share: null, suppressed: true };
  return {
    own: f.own,
    market: f.market,
    share: f.market > 0 ? round4(f.own / f.market) : null,
    suppressed: false,
  };
}

export const round2 = (value: number): number => Math.round(value * 100) / 100;
export const round3 = (value: number): number => Math.round(value * 1000) / 1000;
export const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;

/** Bedroom classes of the mix adjustment (city_month_prices.bedrooms): 4 = four or more, 255 = not given. */
export const bedroomClasses = [0, 1, 2, 3, 4, 255] as const;

/**
 * Mix-adjusted median rent of one month: Σ w_c · median_c over the bedroom classes c listed that
 * month, divided by Σ w_c over the same classes. w_c is the class's share of all listings of the
 * whole window (fixed weights), so a month in which more studios than villas were listed does not
 * read as a fall in rents. null when nothing was listed.
 */
export function mixAdjusted(
  medians: ReadonlyMap<number, number>,
  weights: ReadonlyMap<number, number>,
): number | null {
  let weighted = 0;
  let weight = 0;
  for (const [bedrooms, medianRent] of medians) {
    const w = weights.get(bedrooms) ?? 0;
    weighted += w * medianRent;
    weight += w;
  }
  return weight > 0 ? round2(weighted / weight) : null;
}

/** Seasonality status by months of history (from the first month with listings to the end month). */
export function seasonalityStatus(historyMonths: number): 'insufficient_history' | 'provisional' | 'ok' {
  if (historyMonths < 12) return 'insufficient_history';
  return historyMonths < 24 ? 'provisional' : 'ok';
}

/**
 * Month-of-year index of a monthly series (oldest first, null = no value) whose history covers
 * `historyMonths` months at its end: the last ⌊historyMonths/12⌋ whole years, counted back from the
 * end month, are blocks of 12; each value is divided by the mean of its block's values; the index
 * of a calendar month is the mean of its ratios over the blocks (1.0 = an average month). Returns
 * 12 entries by calendar month (index null where no block has a value), or null under 12 months.
 */
export function monthOfYearIndex(
  series: readonly { month: string; value: number | null }[],
  historyMonths: number,
): { month: number; index: number | null; years: number }[] | null {
  const years = Math.floor(Math.min(historyMonths, series.length) / 12);
  if (years < 1) return null;
  const ratios: number[][] = Array.from({ length: 12 }, () => []);
  for (let block = 0; block < years; block++) {
    const months = series.slice(series.length - 12 * (block + 1), series.length - 12 * block);
    const values = months.map((m) => m.value).filter((v): v is number => v !== null);
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    if (!values.length || !(mean > 0)) continue;
    for (const m of months) {
      if (m.value !== null) ratios[Number(m.month.slice(5, 7)) - 1]!.push(m.value / mean);
    }
  }
  return ratios.map((r, i) => ({
    month: i + 1,
    index: r.length ? round3(r.reduce((a, b) => a + b, 0) / r.length) : null,
    years: r.length,
  }));
}
