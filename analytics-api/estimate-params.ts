// Query parameters of the rent estimates, validated into numbers before anything touches SQL or
// the cache; every failure is a 400 invalid_parameter naming the parameter (as params.ts does for
// the other analytics endpoints).
import { currencies, propertyTypes, type Currency, type PropertyType } from '../common/domain/listing.ts';
import { AppError } from '../common/errors.ts';

export interface EstimateParams {
  latitude: number;
  longitude: number;
  type: PropertyType;
  bedrooms: number | null;
  bathrooms: number | null;
  areaSqm: number | null;
  currency: Currency;
}

type Problem = { parameter: string; message: string; allowed?: readonly string[] };

/** A number as clients print doubles: 6.8, -0.0, 1e-05, 150000.00000000003. */
const DECIMAL = /^[-+]?(\d{1,20}(\.\d{0,30})?|\.\d{1,30})([eE][-+]?\d{1,3})?$/;
const WHOLE = /^\d{1,4}$/;

/** The documented ranges (openapi-estimate.ts states the same). */
export const ESTIMATE_LIMITS = {
  latitude: [-90, 90],
  longitude: [-180, 180],
  rooms: [0, 1000],
  areaSqm: [1, 1_000_000],
} as const;

function number(
  query: Record<string, unknown>,
  name: string,
  problems: Problem[],
  rule: { pattern: RegExp; min: number; max: number; required: boolean; what: string },
): number | null {
  const raw = query[name];
  if (raw === undefined) {
    if (rule.required) problems.push({ parameter: name, message: `${name} is required` });
    return null;
  }
  const value = typeof raw === 'string' && rule.pattern.test(raw) ? Number(raw) : NaN;
  if (!(value >= rule.min && value <= rule.max)) {
    problems.push({
      parameter: name,
      message: `${name} must be ${rule.what} from ${rule.min} to ${rule.max}`,
    });
    return null;
  }
  return value;
}

function choice<T extends string>(
  query: Record<string, unknown>,
  name: string,
  values: readonly T[],
  problems: Problem[],
  fallback?: T,
): T | undefined {
  const raw = query[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  if (typeof raw === 'string' && (values as readonly string[]).includes(raw)) return raw as T;
  problems.push({
    parameter: name,
    message: raw === undefined ? `${name} is required` : `unknown ${name}`,
    allowed: values,
  });
  return undefined;
}

function fail(problems: Problem[]): never {
  throw new AppError('invalid_parameter', problems.map((p) => p.message).join('; '), { details: problems });
}

export function parseCurrency(query: Record<string, unknown>): Currency {
  const problems: Problem[] = [];
  const currency = choice(query, 'currency', currencies, problems, 'TZS');
  if (!currency) fail(problems);
  return currency;
}

export function parseEstimateParams(query: Record<string, unknown>): EstimateParams {
  const problems: Problem[] = [];
  const decimal = { pattern: DECIMAL, required: true, what: 'a decimal number' };
  const [minRooms, maxRooms] = ESTIMATE_LIMITS.rooms;
  const whole = { pattern: WHOLE, min: minRooms, max: maxRooms, required: false, what: 'a whole number' };
  const [minLat, maxLat] = ESTIMATE_LIMITS.latitude;
  const [minLng, maxLng] = ESTIMATE_LIMITS.longitude;
  const latitude = number(query, 'lat', problems, { ...decimal, min: minLat, max: maxLat });
  const longitude = number(query, 'lng', problems, { ...decimal, min: minLng, max: maxLng });
  const type = choice(query, 'type', propertyTypes, problems);
  const bedrooms = number(query, 'bedrooms', problems, whole);
  const bathrooms = number(query, 'bathrooms', problems, whole);
  const [minArea, maxArea] = ESTIMATE_LIMITS.areaSqm;
  const areaSqm = number(query, 'area_sqm', problems, {
    pattern: DECIMAL,
    min: minArea,
    max: maxArea,
    required: false,
    what: 'a number of square metres',
  });
  const currency = choice(query, 'currency', currencies, problems, 'TZS');
  if (problems.length || latitude === null || longitude === null || !type || !currency) fail(problems);
  return { latitude, longitude, type, bedrooms, bathrooms, areaSqm, currency };
}
