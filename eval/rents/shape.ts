// The one CSV shape every real-rent dataset is converted to (npm run rents:fetch writes it,
// npm run rents:eval reads it): one long-term monthly asking rent per row, already moved onto Dar es
// Salaam as a block (moveOntoDar below), in the dataset's own currency (the evaluation measures
// ratios, so the currency never matters).
import { cityLocation } from '../../common/domain/locations.ts';
import type { PropertyType } from '../../common/domain/listing.ts';

export interface RentRow {
  id: string;
  /** Epoch seconds of the day the listing was first seen. */
  listedAt: number;
  latitude: number;
  longitude: number;
  type: PropertyType;
  bedrooms: number | null;
  bathrooms: number | null;
  areaSqm: number | null;
  rent: number;
}

export const CSV_HEADER = 'id,listed_at,latitude,longitude,property_type,bedrooms,bathrooms,area_sqm,rent';

const cell = (v: number | null) => (v === null ? '' : String(v));

export function toCsvLine(r: RentRow): string {
  return [
    r.id,
    new Date(r.listedAt * 1000).toISOString().slice(0, 10),
    r.latitude.toFixed(6),
    r.longitude.toFixed(6),
    r.type,
    cell(r.bedrooms),
    cell(r.bathrooms),
    cell(r.areaSqm),
    String(r.rent),
  ].join(',');
}

export function parseCsv(text: string): RentRow[] {
  const [header, ...lines] = text.trim().split('\n');
  if (header !== CSV_HEADER) throw new Error(`not a converted rents file (header ${header})`);
  const num = (s: string) => (s === '' ? null : Number(s));
  return lines.map((line) => {
    const [id, day, lat, lng, type, bedrooms, bathrooms, area, rent] = line.split(',');
    return {
      id: id!,
      listedAt: Date.parse(`${day}T00:00:00Z`) / 1000,
      latitude: Number(lat),
      longitude: Number(lng),
      type: type as PropertyType,
      bedrooms: num(bedrooms!),
      bathrooms: num(bathrooms!),
      areaSqm: num(area!),
      rent: Number(rent),
    };
  });
}

/**
 * Moves a city onto Dar es Salaam as a block: each listing keeps its north-south and east-west
 * offset in km from the city's centre (the median of its listings), so distances between listings
 * and the spatial pattern of rents are the original city's.
 */
export function moveOntoDar(rows: RentRow[]): RentRow[] {
  const dar = cityLocation('dar_es_salaam')!;
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const lat0 = middle(rows.map((r) => r.latitude));
  const lng0 = middle(rows.map((r) => r.longitude));
  const rad = Math.PI / 180;
  const stretch = Math.cos(lat0 * rad) / Math.cos(dar.latitude * rad);
  return rows.map((r) => ({
    ...r,
    latitude: dar.latitude + (r.latitude - lat0),
    longitude: dar.longitude + (r.longitude - lng0) * stretch,
  }));
}
