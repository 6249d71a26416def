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

/** Plain decimals as any client prints a double (no exponent, at most 20 places). */
const DECIMAL = /^-?\d{1,3}(\.\d{1,20})?$/;
const WHOLE = /^\d{1,4}$/;

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
  const whole = { pattern: WHOLE, min: 0, max: 1000, required: false, what: 'a whole number' };
  const latitude = number(query, 'lat', problems, { ...decimal, min: -90, max: 90 });
  const longitude = number(query, 'lng', problems, { ...decimal, min: -180, max: 180 });
  const type = choice(query, 'type', propertyTypes, problems);
  const bedrooms = number(query, 'bedrooms', problems, whole);
  const bathrooms = number(query, 'bathrooms', problems, whole);
  const areaSqm = number(query, 'area_sqm', problems, {
    pattern: /^\d{1,7}(\.\d{1,6})?$/,
    min: 1,
    max: 1_000_000,
    required: false,
    what: 'a number of square metres',
  });
  const currency = choice(query, 'currency', currencies, problems, 'TZS');
  if (problems.length || latitude === null || longitude === null || !type || !currency) fail(problems);
  return { latitude, longitude, type, bedrooms, bathrooms, areaSqm, currency };
}
