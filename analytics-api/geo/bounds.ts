// The heatmap's `bounds` parameter: minLng,minLat,maxLng,maxLat (west,south,east,north — the GeoJSON
// bbox order of the contract), validated into numbers before anything else sees it.
export interface Bounds {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Largest box the heatmap answers (≈ 13,600 resolution-8 cells); docs/analytics.md. */
export const MAX_BOUNDS_AREA_KM2 = 10_000;
const EARTH_RADIUS_KM = 6371.0088;

export type BoundsResult = { ok: true; bounds: Bounds; areaKm2: number } | { ok: false; message: string };

const DECIMAL = '\\s*[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)\\s*';
const decimal = new RegExp(`^${DECIMAL}$`);
/**
 * The grammar parseBounds accepts (four comma-separated decimals), for the OpenAPI document. The
 * rest (ranges, west < east, south < north, the area and shape caps) no pattern can say: the
 * document names them with the custom format `bbox` and the 400 they get.
 */
export const BOUNDS_PATTERN = `^${DECIMAL}(,${DECIMAL}){3}$`;

export function parseBounds(raw: unknown): BoundsResult {
  if (typeof raw !== 'string')
    return { ok: false, message: 'bounds is required: minLng,minLat,maxLng,maxLat' };
  const parts = raw.split(',');
  if (parts.length !== 4 || !parts.every((part) => decimal.test(part))) {
    return {
      ok: false,
      message: 'bounds must be four comma-separated decimal numbers: minLng,minLat,maxLng,maxLat',
    };
  }
  const [west, south, east, north] = parts.map(Number) as [number, number, number, number];
  if (west < -180 || east > 180) return { ok: false, message: 'longitudes must be between -180 and 180' };
  if (south < -90 || north > 90) return { ok: false, message: 'latitudes must be between -90 and 90' };
  if (!(west < east))
    return {
      ok: false,
      message: 'minLng must be less than maxLng (boxes across the antimeridian are not supported)',
    };
  if (!(south < north)) return { ok: false, message: 'minLat must be less than maxLat' };
  const bounds = { west, south, east, north };
  return { ok: true, bounds, areaKm2: boundsAreaKm2(bounds) };
}

/** Area of a lat/lng box on the sphere: R² · Δλ · (sin φn − sin φs). */
export function boundsAreaKm2(b: Bounds): number {
  const rad = Math.PI / 180;
  return EARTH_RADIUS_KM ** 2 * (b.east - b.west) * rad * (Math.sin(b.north * rad) - Math.sin(b.south * rad));
}

export function contains(b: Bounds, lat: number, lng: number): boolean {
  return lat >= b.south && lat <= b.north && lng >= b.west && lng <= b.east;
}
