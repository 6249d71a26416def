// Where a listing is: city and neighbourhood from its location_id, else its coordinates, else the
// names in its address (locations dataset, common/domain/locations.ts); the H3 cell from its
// coordinates, else from the resolved neighbourhood's centre. A source that yields only a city is
// refined by the next source when that one agrees on the city.
import {
  resolveByAddress,
  resolveById,
  resolveByPoint,
  type Resolved,
} from '../../common/domain/locations.ts';
import { h3Cell } from './h3.ts';

export type LocationSource = 'none' | 'location_id' | 'coordinates' | 'address';

export interface ListingPlace {
  city: string;
  neighbourhood: string;
  neighbourhood_id: string | null;
  h3_index: string;
  location_source: LocationSource;
}

export interface PlaceInput {
  location_id?: string | undefined;
  latitude?: number | undefined;
  longitude?: number | undefined;
  address?: string | undefined;
}

export function placeOf(input: PlaceInput): ListingPlace {
  const hasPoint = input.latitude !== undefined && input.longitude !== undefined;
  const candidates: [LocationSource, () => Resolved | undefined][] = [
    ['location_id', () => (input.location_id ? resolveById(input.location_id) : undefined)],
    ['coordinates', () => (hasPoint ? resolveByPoint(input.latitude!, input.longitude!) : undefined)],
    ['address', () => (input.address ? resolveByAddress(input.address) : undefined)],
  ];
  let found: Resolved | undefined;
  let source: LocationSource = 'none';
  for (const [name, resolve] of candidates) {
    const resolved = resolve();
    if (!resolved) continue;
    if (!found) [found, source] = [resolved, name];
    else if (!found.neighbourhood && resolved.city === found.city && resolved.neighbourhood)
      found = { city: found.city, neighbourhood: resolved.neighbourhood };
    if (found.neighbourhood) break;
  }
  const n = found?.neighbourhood;
  const h3 = hasPoint ? h3Cell(input.latitude!, input.longitude!) : n ? h3Cell(n.latitude, n.longitude) : '0';
  return {
    city: found?.city ?? '',
    neighbourhood: n?.name ?? '',
    neighbourhood_id: n?.id ?? null,
    h3_index: h3,
    location_source: source,
  };
}
