// The locations dataset (infra/locations/locations.json): the ten cities of spec §4.3 and their
// neighbourhoods, each with a stable UUID that clients pass as `location_id`. Used by the stream to
// enrich listings (location_id → coordinates → address), by the analytics for names, and loaded into
// the ClickHouse `locations` table so data engineers can join on it. Pure functions over static data.
import dataset from '../../infra/locations/locations.json' with { type: 'json' };
import type { CitySlug } from './cities.ts';

export interface Location {
  id: string;
  kind: 'city' | 'neighbourhood';
  city: CitySlug;
  /** The neighbourhood slug, or the city slug for a city record. */
  slug: string;
  name: string;
  latitude: number;
  longitude: number;
  radius_km: number;
}

export interface Resolved {
  city: CitySlug;
  /** Undefined when only the city is known. */
  neighbourhood?: Location;
}

export const LOCATIONS_VERSION: number = dataset.version;

/** A dataset entry as a Location; `city` is the slug of the city it lies in (its own for a city). */
function locationOf(
  kind: Location['kind'],
  city: string,
  entry: Pick<Location, 'id' | 'slug' | 'name' | 'latitude' | 'longitude' | 'radius_km'>,
): Location {
  return {
    id: entry.id,
    kind,
    city: city as CitySlug,
    slug: entry.slug,
    name: entry.name,
    latitude: entry.latitude,
    longitude: entry.longitude,
    radius_km: entry.radius_km,
  };
}

const cityRecords = dataset.cities.map((c) => locationOf('city', c.slug, c));
const neighbourhoodRecords = dataset.neighbourhoods.map((n) => locationOf('neighbourhood', n.city, n));

export const allLocations: readonly Location[] = [...cityRecords, ...neighbourhoodRecords];
const byId = new Map(allLocations.map((l) => [l.id, l]));

export function locationById(id: string): Location | undefined {
  return byId.get(id.toLowerCase());
}

export function cityLocation(city: CitySlug): Location | undefined {
  return cityRecords.find((c) => c.city === city);
}

const neighbourhoodsByCity = new Map<CitySlug, Location[]>();
for (const n of neighbourhoodRecords) {
  const list = neighbourhoodsByCity.get(n.city) ?? [];
  neighbourhoodsByCity.set(n.city, list.concat(n));
}

export function neighbourhoodsOf(city: CitySlug): Location[] {
  return [...(neighbourhoodsByCity.get(city) ?? [])];
}

/** Where a location_id points: a city record resolves to the city only. */
export function resolveById(id: string): Resolved | undefined {
  const location = locationById(id);
  if (!location) return undefined;
  return location.kind === 'city'
    ? { city: location.city }
    : { city: location.city, neighbourhood: location };
}

/** Distance in km on a sphere (haversine); accurate enough at city scale. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLng = (lng2 - lng1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLng / 2) ** 2;
  return 12_742 * Math.asin(Math.sqrt(a));
}

// A point slightly outside a neighbourhood's nominal radius still belongs to it when it is the
// nearest one: the radii are approximations, and gaps between neighbourhoods are not "no area".
const NEIGHBOURHOOD_SLACK = 1.5;

/**
 * km per degree of latitude on the sphere of distanceKm: |Δlat| × this never exceeds the distance,
 * so a candidate farther than that in latitude alone is skipped without the haversine (the stream
 * resolves every listing and view; this cut the search's CPU several times over).
 */
const KM_PER_DEGREE_LATITUDE = (12_742 / 2) * (Math.PI / 180);

/**
 * The city whose extent contains the point (nearest centre wins), and within it the neighbourhood
 * with the smallest distance relative to its radius, if the point lies within 1.5 radii of it.
 */
export function resolveByPoint(latitude: number, longitude: number): Resolved | undefined {
  if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return undefined;
  let city: Location | undefined;
  let cityKm = Infinity;
  for (const c of cityRecords) {
    if (Math.abs(latitude - c.latitude) * KM_PER_DEGREE_LATITUDE > c.radius_km) continue;
    const km = distanceKm(latitude, longitude, c.latitude, c.longitude);
    if (km <= c.radius_km && km < cityKm) [city, cityKm] = [c, km];
  }
  if (!city) return undefined;
  let best: Location | undefined;
  let bestScore = NEIGHBOURHOOD_SLACK;
  for (const n of neighbourhoodsByCity.get(city.city) ?? []) {
    if (Math.abs(latitude - n.latitude) * KM_PER_DEGREE_LATITUDE > bestScore * n.radius_km) continue;
    const score = distanceKm(latitude, longitude, n.latitude, n.longitude) / n.radius_km;
    if (score <= bestScore) [best, bestScore] = [n, score];
  }
  return best ? { city: city.city, neighbourhood: best } : { city: city.city };
}

/** Lowercase words separated by single spaces, so "Oyster-Bay," matches "oyster bay". */
function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .normalize('NFD')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
}

const cityNames: { city: CitySlug; phrase: string }[] = dataset.cities
  .flatMap((c) =>
    [c.name, c.slug.replace(/_/g, ' '), ...c.aliases].map((p) => ({
      city: c.slug as CitySlug,
      phrase: normalise(p),
    })),
  )
  .sort((a, b) => b.phrase.length - a.phrase.length);
const neighbourhoodNames = neighbourhoodRecords
  .map((n) => ({ location: n, phrase: normalise(n.name) }))
  .sort((a, b) => b.phrase.length - a.phrase.length);

/**
 * The phrases that occur in normalised `words` (whole words), in the phrases' own order. Only the
 * phrases starting with one of the text's words are tried: the stream resolves every listing
 * without a neighbourhood from its coordinates this way, and trying all ~130 phrases on each was
 * its largest enrichment cost.
 */
function phraseFinder<T extends { phrase: string }>(entries: T[]): (words: string) => T[] {
  const byFirstWord = new Map<string, number[]>();
  entries.forEach((entry, i) => {
    const first = entry.phrase.trim().split(' ')[0]!;
    byFirstWord.set(first, [...(byFirstWord.get(first) ?? []), i]);
  });
  return (words) => {
    const hits: number[] = [];
    for (const word of new Set(words.trim().split(' '))) {
      for (const i of byFirstWord.get(word) ?? []) if (words.includes(entries[i]!.phrase)) hits.push(i);
    }
    return hits.sort((a, b) => a - b).map((i) => entries[i]!);
  };
}
const citiesNamedIn = phraseFinder(cityNames);
const neighbourhoodsNamedIn = phraseFinder(neighbourhoodNames);

/**
 * City and neighbourhood named in a free-text address ("Plot 12, Masaki, Dar es Salaam"), matched on
 * whole words. A neighbourhood in the named city wins; without a city name the first (longest)
 * neighbourhood name decides the city.
 */
export function resolveByAddress(text: string): Resolved | undefined {
  const words = normalise(text);
  if (words.trim() === '') return undefined;
  const city = citiesNamedIn(words)[0]?.city;
  const matches = neighbourhoodsNamedIn(words).map((n) => n.location);
  const neighbourhood = city ? matches.find((n) => n.city === city) : matches[0];
  if (neighbourhood) return { city: neighbourhood.city, neighbourhood };
  return city ? { city } : undefined;
}
