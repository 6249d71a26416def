// Query parameters of the two analytics endpoints, validated into enums, numbers and quarters
// before anything touches SQL or the cache. Every failure is a 400 that names the parameter and,
// for enumerations, the allowed values.
import { citySlugs, type CitySlug } from '../common/domain/cities.ts';
import { propertyTypes, type PropertyType } from '../common/domain/listing.ts';
import { AppError } from '../common/errors.ts';
import { MAX_BOUNDS_AREA_KM2, parseBounds, type Bounds } from './geo/bounds.ts';
import { planCovering } from './geo/h3-ranges.ts';
import { periodLabel, periodSchema, quarterOf, type Quarter } from './period.ts';

export interface PricingParams {
  city: CitySlug;
  type: PropertyType;
  period: Quarter;
}

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
