// Query parameters of the pricing, heatmap and lifecycle endpoints, one zod object per route
// (query.ts): validated into enums, numbers and quarters before anything touches SQL or the cache,
// and the same objects are the routes' parameters in the OpenAPI document.
import { z } from 'zod';
import { citySlugs } from '../common/domain/cities.ts';
import { propertyTypes } from '../common/domain/listing.ts';
import { AppError } from '../common/errors.ts';
import { BOUNDS_PATTERN, MAX_BOUNDS_AREA_KM2, parseBounds } from './geo/bounds.ts';
import { planCovering } from './geo/h3-ranges.ts';
import {
  MAX_YEAR,
  MIN_YEAR,
  MONTH_PATTERN,
  PERIOD_PATTERN,
  periodLabel,
  quarterOf,
  type Quarter,
} from './period.ts';
import { choice, parseQuery } from './query.ts';
import { GEOJSON_MEDIA_TYPE, heatmapFormats } from './services/heatmap-geojson.ts';

export const DEFAULT_SEASONALITY_MONTHS = 24;
export const MAX_SEASONALITY_MONTHS = 60;
/** The `months` values accepted: 1–60, written with up to three digits. */
export const SEASONALITY_MONTHS_PATTERN = '^(0{0,2}[1-9]|0?[1-5][0-9]|0?60)$';

/** The month before `now`'s (UTC), YYYY-MM: the last complete month. */
export function lastCompleteMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

const city = choice('city', citySlugs);
const type = choice('type', propertyTypes);

// Absent, it is the current quarter (filled in by the parsers, which know `now`).
const periodMessage = () => `period must be YYYY-Qn, e.g. ${periodLabel(quarterOf(new Date()))}`;
const period = z
  .string({ error: periodMessage })
  .regex(new RegExp(PERIOD_PATTERN), { error: periodMessage })
  .transform((value): Quarter => ({
    year: Number(value.slice(0, 4)),
    quarter: Number(value[6]) as Quarter['quarter'],
  }))
  .optional()
  .meta({
    description: `Quarter YYYY-Qn (UTC), ${MIN_YEAR}-Q1 to ${MAX_YEAR}-Q4; default: the current quarter`,
  });

/** Pricing, velocity and market share: a city, a property type and a quarter. */
export const pricingQuery = z.object({ city, type, period });
export type PricingParams = Required<z.output<typeof pricingQuery>>;
/** Velocity and market share take the pricing parameters (city, type, period). */
export type MarketParams = PricingParams;

export function parsePricingParams(query: Record<string, unknown>, now = new Date()): PricingParams {
  const params = parseQuery(pricingQuery, query);
  return { ...params, period: params.period ?? quarterOf(now) };
}

const boundsRule =
  'minLng,minLat,maxLng,maxLat (west,south,east,north — GeoJSON bbox order), decimal degrees: ' +
  'longitudes -180..180 and latitudes -90..90, west < east (no antimeridian crossing), ' +
  `south < north, at most ${MAX_BOUNDS_AREA_KM2} km², and not so long and thin that its H3 covering ` +
  'would read more than 100,000 km². Any other box is a 400 invalid_parameter naming the rule.';

const bounds = z
  .string({ error: 'bounds is required: minLng,minLat,maxLng,maxLat' })
  .regex(new RegExp(BOUNDS_PATTERN), {
    error: 'bounds must be four comma-separated decimal numbers: minLng,minLat,maxLng,maxLat',
  })
  .meta({ format: 'bbox' })
  .transform((raw, ctx) => {
    const parsed = parseBounds(raw);
    if (!parsed.ok) {
      ctx.issues.push({ code: 'custom', message: parsed.message, input: raw });
      return z.NEVER;
    }
    // Larger boxes would return tens of thousands of cells; zoom in or split the box. This answer
    // replaces every other problem of the request.
    if (parsed.areaKm2 > MAX_BOUNDS_AREA_KM2) {
      const area = Math.round(parsed.areaKm2);
      throw new AppError(
        'invalid_parameter',
        `bounds cover ${area} km²; the maximum is ${MAX_BOUNDS_AREA_KM2} km²`,
        {
          details: [{ parameter: 'bounds', area_km2: area, max_area_km2: MAX_BOUNDS_AREA_KM2 }],
        },
      );
    }
    return parsed.bounds;
  })
  .meta({ description: boundsRule });

const format = z
  .enum(heatmapFormats, { error: 'format must be json or geojson' })
  .optional()
  .meta({
    description: `json (default): {grid_size, cells}; geojson: a FeatureCollection of the hexagons (${GEOJSON_MEDIA_TYPE})`,
  });

export const heatmapQuery = z.object({ bounds, type: type.optional(), period, format });
type HeatmapQuery = z.output<typeof heatmapQuery>;
/** What the heatmap is computed from; `format` only changes how the answer is written. */
export type HeatmapParams = Pick<HeatmapQuery, 'bounds' | 'type'> & { period: Quarter };

// A bad format is answered alone, before the box is looked at; the box's problems follow the type's
// and the period's.
const heatmapFormatQuery = z.object({ format });
const heatmapBoxQuery = z.object({ type: heatmapQuery.shape.type, period, bounds });

export function parseHeatmapParams(
  query: Record<string, unknown>,
  now = new Date(),
): HeatmapParams & Required<Pick<HeatmapQuery, 'format'>> {
  const format = parseQuery(heatmapFormatQuery, query).format ?? 'json';
  const params = parseQuery(heatmapBoxQuery, query);
  // Bounded before any cell is computed: a thin box under the area cap can still span a continent.
  const plan = planCovering(params.bounds);
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
  return { bounds: params.bounds, type: params.type, period: params.period ?? quarterOf(now), format };
}

const monthsMessage = `months must be a whole number from 1 to ${MAX_SEASONALITY_MONTHS}`;
const months = z
  .string({ error: monthsMessage })
  .regex(new RegExp(SEASONALITY_MONTHS_PATTERN), { error: monthsMessage })
  .transform(Number)
  .optional()
  .meta({ description: `Length of the series, 1–${MAX_SEASONALITY_MONTHS} (default 24)` });

const endMessage = () =>
  `end must be a month YYYY-MM (${MIN_YEAR}–${MAX_YEAR}), e.g. ${lastCompleteMonth(new Date())}`;
const end = z
  .string({ error: endMessage })
  .regex(new RegExp(MONTH_PATTERN), { error: endMessage })
  .optional()
  .meta({ description: 'Last month YYYY-MM, 1971-01 to 2100-12 (default: the last complete month, UTC)' });

export const seasonalityQuery = z.object({ city, type, months, end });
/** `months` is the length of the monthly series, `end` its last month, YYYY-MM (UTC). */
export type SeasonalityParams = Required<z.output<typeof seasonalityQuery>>;

export function parseSeasonalityParams(query: Record<string, unknown>, now = new Date()): SeasonalityParams {
  const params = parseQuery(seasonalityQuery, query);
  return {
    ...params,
    months: params.months ?? DEFAULT_SEASONALITY_MONTHS,
    end: params.end ?? lastCompleteMonth(now),
  };
}
