// The rent estimate's method (docs/analytics.md, "Rent estimates") as pure functions, shared by the
// endpoint (analytics-api/services/estimate.ts: candidates from ClickHouse) and the backtest
// (stream/estimate/backtest.ts: candidates from an in-memory index), so the accuracy published
// with every estimate is measured on exactly this code.
//
// Candidates are listings of the same mode and type, listed in the age window before the reference
// time, within the search radius, that pass `isSimilar`; they arrive sorted nearest first
// (`compareCandidates`, also the SQL's ORDER BY). The search widens through SEARCH_STEPS until one
// holds MIN_COMPARABLES; the nearest MAX_COMPARABLES of that step are the comparables used.

export const MIN_COMPARABLES = 5;
export const MAX_COMPARABLES = 15;
/** Ages first (recent asking rents at any distance up to 10 km), then a year back. */
export const RADII_KM = [1, 2, 5, 10] as const;
export const MAX_AGES_DAYS = [90, 365] as const;
export const RECENT_DAYS = MAX_AGES_DAYS[0];
export const MAX_AGE_DAYS = MAX_AGES_DAYS[1];
export const MAX_RADIUS_KM = RADII_KM[RADII_KM.length - 1]!;

export interface SearchStep {
  radiusKm: number;
  maxAgeDays: number;
}
export const SEARCH_STEPS: readonly SearchStep[] = MAX_AGES_DAYS.flatMap((maxAgeDays) =>
  RADII_KM.map((radiusKm) => ({ radiusKm, maxAgeDays })),
);

/** Comparables have at most this many bedrooms more or fewer (when the subject's are known). */
export const BEDROOM_TOLERANCE = 1;
/** …and a floor area within this factor of the subject's (when both are known). */
export const AREA_RATIO_LIMIT = 1.5;
/** Rent grows with floor area less than proportionally: a comparable's rent × (area ratio)^0.5. */
export const SIZE_ELASTICITY = 0.5;
/** Without both areas, a bedroom more or fewer is worth this factor of rent. */
export const BEDROOM_PRICE_STEP = 1.15;
/** Weight of a comparable halves every this many days of age. */
export const AGE_HALF_LIFE_DAYS = 180;
/** The interval's intended coverage: 80 % of actual asking rents inside low–high. */
export const INTERVAL_TARGET = 0.8;

export const SECONDS_PER_DAY = 86_400;

export interface Subject {
  latitude: number;
  longitude: number;
  bedrooms: number | null;
  bathrooms: number | null;
  areaSqm: number | null;
}

export interface Candidate {
  listingId: string;
  /** Epoch seconds. */
  listedAt: number;
  distanceKm: number;
  ageDays: number;
  bedrooms: number | null;
  bathrooms: number | null;
  areaSqm: number | null;
  priceTzs: number;
  /** cityHash64(listing_id) as two 32-bit halves: the last tie-breaker, as in the SQL. */
  tieHi: number;
  tieLo: number;
  /** The listing's city, where the search reads it (the estimate endpoint: its states by key). */
  city?: string;
}

/** Haversine distance in km on a 6,371 km sphere; the SQL computes the same expression. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lng2 - lng1) * rad) / 2) ** 2;
  return 12_742 * Math.asin(Math.sqrt(a));
}

/** Nearest first; then newer; then the hash of the id (a total order, identical in SQL). */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return a.distanceKm - b.distanceKm || b.listedAt - a.listedAt || a.tieHi - b.tieHi || a.tieLo - b.tieLo;
}

/** The similarity filter (the SQL applies the same conditions). */
export function isSimilar(
  subject: Subject,
  candidate: { bedrooms: number | null; areaSqm: number | null },
): boolean {
  if (subject.bedrooms !== null) {
    if (candidate.bedrooms === null) return false;
    if (Math.abs(candidate.bedrooms - subject.bedrooms) > BEDROOM_TOLERANCE) return false;
  }
  if (subject.areaSqm !== null && candidate.areaSqm !== null) {
    if (candidate.areaSqm < subject.areaSqm / AREA_RATIO_LIMIT) return false;
    if (candidate.areaSqm > subject.areaSqm * AREA_RATIO_LIMIT) return false;
  }
  return true;
}

/** The nearest candidates the caller found, per age class, each sorted by compareCandidates. */
export interface CandidateLists {
  /** Within RECENT_DAYS: the nearest MAX_COMPARABLES within the searched radius. */
  recent: Candidate[];
  /** Within MAX_AGE_DAYS (recent included): the nearest MAX_COMPARABLES; undefined if not searched. */
  all?: Candidate[];
  /** Radius the lists were searched to. */
  searchedKm: number;
}

export type Selection =
  | { kind: 'found'; step: SearchStep; used: Candidate[] }
  | { kind: 'needs_wider' }
  | { kind: 'needs_older' }
  | { kind: 'insufficient'; searched: { radius_km: number; max_age_days: number; comparables: number }[] };

/**
 * Walks SEARCH_STEPS in order: the first step with at least MIN_COMPARABLES within its radius and
 * age wins. Asks for a wider search or for the older listings when a step needs what the lists do
 * not hold; the lists' nearest MAX_COMPARABLES always contain a step's nearest ones.
 */
export function selectComparables(lists: CandidateLists): Selection {
  const searched: { radius_km: number; max_age_days: number; comparables: number }[] = [];
  for (const step of SEARCH_STEPS) {
    if (step.radiusKm > lists.searchedKm) return { kind: 'needs_wider' };
    const list = step.maxAgeDays <= RECENT_DAYS ? lists.recent : lists.all;
    if (!list) return { kind: 'needs_older' };
    const within = list.filter((c) => c.distanceKm <= step.radiusKm);
    if (within.length >= MIN_COMPARABLES) {
      return { kind: 'found', step, used: within.slice(0, MAX_COMPARABLES) };
    }
    searched.push({ radius_km: step.radiusKm, max_age_days: step.maxAgeDays, comparables: within.length });
  }
  return { kind: 'insufficient', searched };
}

/** Two lists sorted by compareCandidates merged into their first `limit`. */
export function mergeNearest(a: Candidate[], b: Candidate[], limit = MAX_COMPARABLES): Candidate[] {
  const out: Candidate[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < a.length || j < b.length)) {
    if (j >= b.length || (i < a.length && compareCandidates(a[i]!, b[j]!) <= 0)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

export interface WeightedComparable {
  candidate: Candidate;
  /** 0–1: how alike the unit is (bedrooms, floor area, bathrooms); distance and age not included. */
  similarity: number;
  /** The comparable's rent adjusted to the subject's size (TZS). */
  adjustedTzs: number;
  weight: number;
}

export interface PointEstimate {
  rentTzs: number;
  comparables: WeightedComparable[];
  /** Weighted 10th and 90th percentiles of the adjusted rents: the interval when uncalibrated. */
  spreadLowTzs: number;
  spreadHighTzs: number;
}

export function similarityOf(subject: Subject, c: Candidate): number {
  let s = 1;
  if (subject.bedrooms !== null && c.bedrooms !== null) s *= 0.5 ** Math.abs(c.bedrooms - subject.bedrooms);
  if (subject.areaSqm !== null) {
    s *= c.areaSqm !== null ? Math.exp(-2 * Math.abs(Math.log(c.areaSqm / subject.areaSqm))) : 0.7;
  }
  if (subject.bathrooms !== null && c.bathrooms !== null)
    s *= 0.85 ** Math.abs(c.bathrooms - subject.bathrooms);
  return s;
}

/** The comparable's rent as if it had the subject's size: floor area if both are known, else bedrooms. */
export function adjustedRent(subject: Subject, c: Candidate): number {
  if (subject.areaSqm !== null && c.areaSqm !== null && c.areaSqm > 0) {
    return c.priceTzs * (subject.areaSqm / c.areaSqm) ** SIZE_ELASTICITY;
  }
  if (subject.bedrooms !== null && c.bedrooms !== null) {
    return c.priceTzs * BEDROOM_PRICE_STEP ** (subject.bedrooms - c.bedrooms);
  }
  return c.priceTzs;
}

/**
 * The estimate: the weighted median of the comparables' adjusted rents, each weighted by its
 * similarity, its distance relative to the step's radius and its age.
 */
export function estimateRent(subject: Subject, used: Candidate[], step: SearchStep): PointEstimate {
  const comparables = used.map((candidate): WeightedComparable => {
    const similarity = similarityOf(subject, candidate);
    const weight =
      similarity *
      (1 / (1 + (2 * candidate.distanceKm) / step.radiusKm)) *
      0.5 ** (candidate.ageDays / AGE_HALF_LIFE_DAYS);
    return { candidate, similarity, adjustedTzs: adjustedRent(subject, candidate), weight };
  });
  const points = comparables.map((c) => ({ value: c.adjustedTzs, weight: c.weight }));
  return {
    rentTzs: weightedQuantile(points, 0.5),
    comparables,
    spreadLowTzs: weightedQuantile(points, 0.1),
    spreadHighTzs: weightedQuantile(points, 0.9),
  };
}

/**
 * The smallest value whose cumulative weight reaches q of the total; exactly on a boundary (e.g.
 * two equal weights at q = 0.5), the mean of it and the next value.
 */
export function weightedQuantile(points: { value: number; weight: number }[], q: number): number {
  const sorted = [...points].sort((a, b) => a.value - b.value);
  const total = sorted.reduce((sum, p) => sum + p.weight, 0);
  const target = q * total;
  let cumulative = 0;
  for (let i = 0; i < sorted.length; i++) {
    cumulative += sorted[i]!.weight;
    if (Math.abs(cumulative - target) <= 1e-9 * total && i + 1 < sorted.length) {
      return (sorted[i]!.value + sorted[i + 1]!.value) / 2;
    }
    if (cumulative >= target) return sorted[i]!.value;
  }
  return sorted[sorted.length - 1]!.value;
}

export const bedroomClasses = ['0', '1', '2', '3', '4', '5+', 'unknown'] as const;
export type BedroomClass = (typeof bedroomClasses)[number];

/** The bedrooms part of an accuracy segment (city × type × bedrooms). */
export function bedroomClass(bedrooms: number | null): BedroomClass {
  if (bedrooms === null) return 'unknown';
  return bedrooms >= 5 ? '5+' : (String(bedrooms) as BedroomClass);
}
