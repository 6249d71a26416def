// Rent estimate for a point (GET /analytics/estimate) and for a stored listing (listing-estimate.ts):
// comparables from ClickHouse, the method of common/estimate/method.ts, the interval and accuracy of
// the latest backtest (docs/analytics.md, "Rent estimates"). Amounts are TZS inside (each listing's
// price_tzs, converted at the rate stored with it) and the asked currency outside.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Currency, PropertyType } from '../../common/domain/listing.ts';
import { resolveByPoint } from '../../common/domain/locations.ts';
import { AppError } from '../../common/errors.ts';
import {
  readListingStates,
  readListingStatesInScope,
  type ListingState,
} from '../../common/lifecycle/states.ts';
import {
  AREA_RATIO_LIMIT,
  BEDROOM_TOLERANCE,
  bedroomClass,
  estimateRent,
  MAX_AGE_DAYS,
  MAX_COMPARABLES,
  MAX_RADIUS_KM,
  mergeNearest,
  MIN_COMPARABLES,
  RECENT_DAYS,
  SECONDS_PER_DAY,
  selectComparables,
  type Candidate,
  type PointEstimate,
  type SearchStep,
  type Selection,
  type Subject,
} from '../../common/estimate/method.ts';
import type { EstimateAnswer } from '../answers/estimate.ts';
import type { EstimateParams } from '../estimate-params.ts';
import { diskCells } from '../geo/h3-disk.ts';
import { searchCentre } from '../../common/estimate/search-centre.ts';
import { nearbyComparables, type ComparableRow } from '../queries/estimate.ts';
import { round3 } from '../rules.ts';
import { shownDistance } from './distance-bands.ts';
import type { AccuracySource } from './estimate-accuracy.ts';

/**
 * The ClickHouse searches, in the order of the method's steps, each reading only the cells of its
 * disk and its age window: 1 km over 90 days answers almost every request in a city (on the 10 M
 * bench 98 %), 2 km the next step; where 2 km held fewer than 5 (sparse places), one 10 km search
 * over a year answers every remaining step (its nearest recent and older listings apart), rather
 * than a 90-day and a 365-day search one after the other.
 */
const PROBES = [
  { radiusKm: 1, days: RECENT_DAYS },
  { radiusKm: 2, days: RECENT_DAYS },
  { radiusKm: MAX_RADIUS_KM, days: MAX_AGE_DAYS },
] as const;

export const ESTIMATE_DEFINITION =
  'Asking-rent estimate: the weighted median of the asking rents of the nearest similar listings of ' +
  'the same type and mode (±1 bedroom, floor area within 1.5×; rents adjusted to the unit’s size), ' +
  'widening 1 → 2 → 5 → 10 km over 90, then 365 days until 5 are found. Asking rents, not agreed ' +
  'rents. The interval and accuracy come from the latest backtest of the segment (docs/analytics.md).';

/** `latitude`/`longitude` are where the search starts; `asked`, the point as the caller gave it. */
export interface EstimateSubject extends Subject {
  type: PropertyType;
  /** City slug of the accuracy segment; '' outside the ten cities. */
  city: string;
  asked?: { latitude: number; longitude: number };
}

export interface EstimateDeps {
  clickhouse: ClickHouseClient;
  accuracy: AccuracySource;
  /** USD→TZS rate for answers in USD. */
  usdTzs: number;
}

export interface EstimateOptions {
  isTest: boolean;
  /** The calling account: its own comparables show their listing id. */
  accountId: string;
  currency: Currency;
  /** The subject listing and its fingerprint, left out of its own comparables. */
  exclude?: { listingId: string; fingerprint: bigint };
  /** Reference time (default now); the backtest consistency test sets a past origin. */
  now?: Date;
}

/** Whole thousands of shillings, whole dollars: rents are quoted so. */
export function quote(tzs: number, currency: Currency, usdTzs: number): number {
  return currency === 'USD' ? Math.round(tzs / usdTzs) : Math.round(tzs / 1000) * 1000;
}

export async function estimateAnswer(
  deps: EstimateDeps,
  subject: EstimateSubject,
  options: EstimateOptions,
): Promise<EstimateAnswer> {
  const segment = { city: subject.city, type: subject.type, bedrooms: bedroomClass(subject.bedrooms) };
  // In parallel; either failure fails the answer.
  const [{ step, point }, { answer, interval }] = await Promise.all([
    estimatePoint(deps.clickhouse, subject, options),
    deps.accuracy.forSegment(options.isTest, segment),
  ]);
  // Other accounts' listings must not be locatable from the answer: no id, only the band of their
  // distance (services/distance-bands.ts), listed by band and price rather than nearest first (an
  // order would place them between the caller's own listings, whose distances are shown), and
  // those off the market (which GET /listings/{id} hides from others too) only counted. A listing
  // without a known state counts as on the market.
  const states = await readComparableStates(
    deps.clickhouse,
    { isTest: options.isTest, type: subject.type },
    point.comparables.map(({ candidate }) => candidate),
  );
  const onMarket = point.comparables.filter(({ candidate }) => {
    const status = states.get(candidate.listingId)?.status;
    return status === undefined || status === 'active' || status === 'under_contract';
  });
  const [low, high] = interval
    ? [point.rentTzs * interval.low, point.rentTzs * interval.high]
    : [point.spreadLowTzs, point.spreadHighTzs];
  const money = (tzs: number) => quote(tzs, options.currency, deps.usdTzs);
  const price = (tzs: number) =>
    options.currency === 'USD' ? Math.round((tzs / deps.usdTzs) * 100) / 100 : tzs;
  return {
    estimate: {
      rent: money(point.rentTzs),
      // Not widened to hold the estimate: the factors are the backtest's, so is the coverage.
      low: money(low),
      high: money(high),
      currency: options.currency,
      kind: 'asking_rent',
      interval_target: interval ? answer.interval_target : null,
      interval_calibrated: interval !== null,
    },
    radius_km: step.radiusKm,
    max_age_days: step.maxAgeDays,
    comparables: onMarket
      .map(({ candidate: c, similarity }) => {
        const own = states.get(c.listingId)?.account_id === options.accountId;
        return {
          listing_id: own ? c.listingId : null,
          price: price(c.priceTzs),
          ...shownDistance(c.distanceKm, own),
          days_old: Math.floor(c.ageDays),
          bedrooms: c.bedrooms,
          bathrooms: c.bathrooms,
          area_sqm: c.areaSqm,
          similarity: round3(similarity),
        };
      })
      .sort(
        (a, b) =>
          a.distance_km - b.distance_km ||
          a.price - b.price ||
          a.days_old - b.days_old ||
          b.similarity - a.similarity,
      ),
    off_market_comparables: point.comparables.length - onMarket.length,
    accuracy: answer,
    subject: {
      latitude: subject.asked?.latitude ?? subject.latitude,
      longitude: subject.asked?.longitude ?? subject.longitude,
      search_center: {
        latitude: subject.latitude,
        longitude: subject.longitude,
        h3_index: searchCentre(subject.latitude, subject.longitude).h3Index,
      },
      property_type: subject.type,
      bedrooms: subject.bedrooms,
      bathrooms: subject.bathrooms,
      area_sqm: subject.areaSqm,
      city: subject.city || null,
    },
    usd_tzs: deps.usdTzs,
    definition: ESTIMATE_DEFINITION,
  };
}

/**
 * The unrounded estimate in TZS and the step that found its comparables, or a 422 when no step
 * holds 5 (the backtest's consistency test compares this with the backtest's own search).
 */
/**
 * The comparables' states, read by their whole key (mode, city, type, id): each city's ids in one
 * statement (a search near a city's edge finds listings of the next one), so no id is first looked
 * up in listing_lookup. A candidate without its city is read by id.
 */
async function readComparableStates(
  clickhouse: ClickHouseClient,
  scope: { isTest: boolean; type: PropertyType },
  candidates: Candidate[],
): Promise<Map<string, ListingState>> {
  const byCity = new Map<string, string[]>();
  const unplaced: string[] = [];
  for (const { listingId, city } of candidates) {
    if (city === undefined) unplaced.push(listingId);
    else (byCity.get(city) ?? byCity.set(city, []).get(city)!).push(listingId);
  }
  const reads = [...byCity].map(([city, ids]) =>
    readListingStatesInScope(clickhouse, { ...scope, city }, ids),
  );
  if (unplaced.length) reads.push(readListingStates(clickhouse, unplaced));
  return new Map((await Promise.all(reads)).flatMap((states) => [...states]));
}

export async function estimatePoint(
  clickhouse: ClickHouseClient,
  subject: EstimateSubject,
  options: Pick<EstimateOptions, 'isTest' | 'exclude' | 'now'>,
): Promise<{ step: SearchStep; point: PointEstimate }> {
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const selection = await searchComparables(clickhouse, subject, options, now);
  if (selection.kind !== 'found') {
    throw insufficient(subject, selection.kind === 'insufficient' ? selection.searched : []);
  }
  return { step: selection.step, point: estimateRent(subject, selection.used, selection.step) };
}

/**
 * The method's search through ClickHouse. The first probe answers most requests alone; when it
 * cannot, the other two start together (where 2 km is not enough either, waiting for it before
 * starting the 10 km one would add its whole time; where it is, the 10 km answer is not used).
 */
async function searchComparables(
  clickhouse: ClickHouseClient,
  subject: EstimateSubject,
  options: Pick<EstimateOptions, 'isTest' | 'exclude'>,
  now: number,
): Promise<Selection> {
  const search = (probe: (typeof PROBES)[number]) =>
    probeComparables(clickhouse, subject, options, now, probe);
  const first = await search(PROBES[0]);
  if (first.kind === 'found' || first.kind === 'insufficient') return first;
  const [second, third] = [search(PROBES[1]), search(PROBES[2])];
  third.catch(() => undefined); // unused when the second one decides; awaited below otherwise
  const wider = await second;
  if (wider.kind === 'found' || wider.kind === 'insufficient') return wider;
  return third;
}

/** One probe: the nearest similar listings within its radius and age, and the steps they answer. */
async function probeComparables(
  clickhouse: ClickHouseClient,
  subject: EstimateSubject,
  options: Pick<EstimateOptions, 'isTest' | 'exclude'>,
  now: number,
  probe: (typeof PROBES)[number],
): Promise<Selection> {
  const { rows } = await nearbyComparables.run(clickhouse, {
    isTest: options.isTest,
    type: subject.type,
    latitude: subject.latitude,
    longitude: subject.longitude,
    cells: diskCells(subject.latitude, subject.longitude, probe.radiusKm),
    radiusKm: probe.radiusKm,
    from: now - probe.days * SECONDS_PER_DAY,
    to: now,
    recentFrom: now - RECENT_DAYS * SECONDS_PER_DAY,
    bedrooms: subject.bedrooms,
    bedroomTolerance: BEDROOM_TOLERANCE,
    areaSqm: subject.areaSqm,
    areaRatio: AREA_RATIO_LIMIT,
    excludeId: options.exclude?.listingId ?? null,
    excludeFingerprint: options.exclude?.fingerprint ?? null,
    limit: MAX_COMPARABLES,
  });
  const candidate = (row: ComparableRow): Candidate => ({
    listingId: row.listing_id,
    listedAt: row.listed_at,
    distanceKm: row.distance_km,
    ageDays: (now - row.listed_at) / SECONDS_PER_DAY,
    bedrooms: row.bedrooms,
    bathrooms: row.bathrooms,
    areaSqm: row.area_sqm,
    priceTzs: row.price_tzs,
    tieHi: row.tie_hi,
    tieLo: row.tie_lo,
    city: row.city,
  });
  const recent = rows.filter((row) => row.recent === 1).map(candidate);
  const all =
    probe.days > RECENT_DAYS
      ? mergeNearest(recent, rows.filter((row) => row.recent === 0).map(candidate))
      : undefined;
  return selectComparables({ recent, all, searchedKm: probe.radiusKm });
}

function insufficient(
  subject: EstimateSubject,
  searched: { radius_km: number; max_age_days: number; comparables: number }[],
): AppError {
  const widest = searched[searched.length - 1];
  return new AppError(
    'insufficient_comparables',
    `Fewer than ${MIN_COMPARABLES} comparable ${subject.type} listings` +
      (widest
        ? ` (${widest.comparables} found within ${widest.radius_km} km listed in the last ${widest.max_age_days} days)`
        : '') +
      '; no estimate',
    {
      retriable: false,
      details: {
        min_comparables: MIN_COMPARABLES,
        property_type: subject.type,
        bedrooms: subject.bedrooms,
        area_sqm: subject.areaSqm,
        similarity: `same type and mode; bedrooms ±${BEDROOM_TOLERANCE} when given; floor area within ${AREA_RATIO_LIMIT}× when both are known`,
        searched,
      },
    },
  );
}

/**
 * GET /analytics/estimate: searched from the centre of the point's H3 cell (common/estimate/search-centre.ts),
 * whose city (as the stream places coordinates) names the segment: the answer is the same for
 * every point of the cell.
 */
export function pointEstimateAnswer(
  deps: EstimateDeps,
  params: EstimateParams,
  isTest: boolean,
  accountId: string,
  /** Reference time (default now): the real-rent evaluation asks as of a past month. */
  now?: Date,
): Promise<EstimateAnswer> {
  const centre = searchCentre(params.latitude, params.longitude);
  const place = resolveByPoint(centre.latitude, centre.longitude);
  return estimateAnswer(
    deps,
    {
      type: params.type,
      city: place?.city ?? '',
      latitude: centre.latitude,
      longitude: centre.longitude,
      asked: { latitude: params.latitude, longitude: params.longitude },
      bedrooms: params.bedrooms,
      bathrooms: params.bathrooms,
      areaSqm: params.areaSqm,
    },
    { isTest, accountId, currency: params.currency, now },
  );
}
