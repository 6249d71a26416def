// Query parameters of the analytics endpoints, validated into enums, numbers and quarters
// before anything touches SQL or the cache. Every failure is a 400 that names the parameter and,
// for enumerations, the allowed values.
import { citySlugs, type CitySlug } from '../common/domain/cities.ts';
import { propertyTypes, type PropertyType } from '../common/domain/listing.ts';
import { AppError } from '../common/errors.ts';
import { MAX_BOUNDS_AREA_KM2, parseBounds, type Bounds } from './geo/bounds.ts';
import { planCovering } from './geo/h3-ranges.ts';
import { MAX_YEAR, MIN_YEAR, periodLabel, periodSchema, quarterOf, type Quarter } from './period.ts';

export interface PricingParams {
  city: CitySlug;
  type: PropertyType;
  period: Quarter;
}

/** Velocity and market share take the pricing parameters (city, type, period). */
export type MarketParams = PricingParams;

export interface SeasonalityParams {
  city: CitySlug;
  type: PropertyType;
  /** Length of the monthly series. */
  months: number;
  /** Its last month, YYYY-MM (UTC). */
  end: string;
}

export const DEFAULT_SEASONALITY_MONTHS = 24;
export const MAX_SEASONALITY_MONTHS = 60;
/** Exactly the `months` values parseSeasonalityParams accepts (1–60, up to three digits), for OpenAPI. */
export const SEASONALITY_MONTHS_PATTERN = '^(0{0,2}[1-9]|0?[1-5][0-9]|0?60)$';

export interface HeatmapParams {
  bounds: Bounds;
  type?: PropertyType;
  period: Quarter;
}

type Problem = { parameter: string; message: string; allowed?: readonly string[] };

const enumParam = <T extends string>(
  name: string,
  values: readonly T[],
  raw: unknown,
  problems: Problem[],
) => {
  if (typeof raw === 'string' && (values as readonly string[]).includes(raw)) return raw as T;
  problems.push({
    parameter: name,
    message: raw === undefined ? `${name} is required` : `unknown ${name}`,
    allowed: values,
  });
  return undefined;
};

const periodParam = (raw: unknown, now: Date, problems: Problem[]): Quarter => {
  if (raw === undefined) return quarterOf(now);
  const parsed = periodSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  problems.push({
    parameter: 'period',
    message: `period must be YYYY-Qn, e.g. ${periodLabel(quarterOf(now))}`,
  });
  return quarterOf(now);
};

function fail(problems: Problem[]): never {
  throw new AppError('invalid_parameter', problems.map((p) => p.message).join('; '), { details: problems });
}

export function parsePricingParams(query: Record<string, unknown>, now = new Date()): PricingParams {
  const problems: Problem[] = [];
  const city = enumParam('city', citySlugs, query.city, problems);
  const type = enumParam('type', propertyTypes, query.type, problems);
  const period = periodParam(query.period, now, problems);
  if (problems.length || !city || !type) fail(problems);
  return { city, type, period };
}

export function parseHeatmapParams(query: Record<string, unknown>, now = new Date()): HeatmapParams {
  const problems: Problem[] = [];
  const type = query.type === undefined ? undefined : enumParam('type', propertyTypes, query.type, problems);
  const period = periodParam(query.period, now, problems);
  const bounds = parseBounds(query.bounds);
  if (!bounds.ok) {
    problems.push({ parameter: 'bounds', message: bounds.message });
  } else if (bounds.areaKm2 > MAX_BOUNDS_AREA_KM2) {
    // Larger boxes would return tens of thousands of cells; zoom in or split the box.
    throw new AppError(
      'invalid_parameter',
      `bounds cover ${Math.round(bounds.areaKm2)} km²; the maximum is ${MAX_BOUNDS_AREA_KM2} km²`,
      {
        details: [
          { parameter: 'bounds', area_km2: Math.round(bounds.areaKm2), max_area_km2: MAX_BOUNDS_AREA_KM2 },
        ],
      },
    );
  }
  if (problems.length || !bounds.ok) fail(problems);
  // Bounded before any cell is computed: a thin box under the area cap can still span a continent.
  const plan = planCovering(bounds.bounds);
  if (!plan.ok) {
    throw new AppError('invalid_parameter', plan.message, {
      details: [
        {
          parameter: 'bounds',
          width_km: Math.round(plan.widthKm),
          height_km: Number(plan.heightKm.toFixed(1)),
        },
      ],
    });
  }
  return { bounds: bounds.bounds, type, period };
}

/** The month before `now`'s (UTC), YYYY-MM: the last complete month. */
export function lastCompleteMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

export function parseSeasonalityParams(query: Record<string, unknown>, now = new Date()): SeasonalityParams {
  const problems: Problem[] = [];
  const city = enumParam('city', citySlugs, query.city, problems);
  const type = enumParam('type', propertyTypes, query.type, problems);
  let months = DEFAULT_SEASONALITY_MONTHS;
  if (query.months !== undefined) {
    months = typeof query.months === 'string' && /^\d{1,3}$/.test(query.months) ? Number(query.months) : NaN;
    if (!(months >= 1 && months <= MAX_SEASONALITY_MONTHS)) {
      problems.push({
        parameter: 'months',
        message: `months must be a whole number from 1 to ${MAX_SEASONALITY_MONTHS}`,
      });
    }
  }
  let end = lastCompleteMonth(now);
  if (query.end !== undefined) {
    const raw = typeof query.end === 'string' ? query.end : '';
    const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(raw);
    const year = Number(match?.[1]);
    if (!match || year < MIN_YEAR || year > MAX_YEAR) {
      problems.push({
        parameter: 'end',
        message: `end must be a month YYYY-MM (${MIN_YEAR}–${MAX_YEAR}), e.g. ${end}`,
      });
    } else end = raw;
  }
  if (problems.length || !city || !type) fail(problems);
  return { city, type, months, end };
}
