// The analytics bench set's candidate cells (bench/analytics-seed.ts): real H3 resolution-8 cells
// around each city's neighbourhood centres (dense) and over the whole city disk (sparse), each with
// the place part of the price model — its neighbourhood's level (lognormal, σ 0.35), else the
// city's periphery level, times a micro-location factor per cell (lognormal, σ 0.12).
import { cellToLatLng, gridDisk, latLngToCell } from 'h3-js';
import { citySlugs, type CitySlug } from '../common/domain/cities.ts';
import { cityLocation, distanceKm, neighbourhoodsOf } from '../common/domain/locations.ts';

interface CellRow {
  cell_id: number;
  city: string;
  neighbourhood: string;
  h3_index: string;
  latitude: number;
  longitude: number;
  /** Place level × cell factor of the price model. */
  price_factor: number;
}

/** A deterministic standard normal from a string (FNV-1a hashes into an Irwin–Hall sum). */
function normalOf(text: string): number {
  let sum = 0;
  for (let k = 0; k < 4; k++) {
    let h = 2166136261 ^ k;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    sum += ((h >>> 0) % 1_000_000) / 1_000_000;
  }
  return (sum - 2) * Math.sqrt(3);
}

/** The place level of a point: its neighbourhood's, else the city's periphery. */
function placeLevel(city: CitySlug, lat: number, lng: number): number {
  let best: string | undefined;
  let bestScore = 1.5;
  for (const nb of neighbourhoodsOf(city)) {
    const score = distanceKm(lat, lng, nb.latitude, nb.longitude) / nb.radius_km;
    if (score <= bestScore) [best, bestScore] = [nb.name, score];
  }
  return best
    ? Math.exp(0.35 * normalOf(`${city}/${best}`))
    : 0.8 * Math.exp(0.2 * normalOf(`${city}/periphery`));
}

function cellRow(id: number, city: CitySlug, neighbourhood: string, h3: string): CellRow {
  const [latitude, longitude] = cellToLatLng(h3);
  return {
    cell_id: id,
    city,
    neighbourhood,
    h3_index: BigInt(`0x${h3}`).toString(),
    latitude,
    longitude,
    price_factor: placeLevel(city, latitude, longitude) * Math.exp(0.12 * normalOf(h3)),
  };
}

/** Per city: cells of its neighbourhoods (dense) and of the whole city disk (sparse). */
export function cellTable() {
  const rows: CellRow[] = [];
  const layout = {
    nbOff: [] as number[],
    nbCnt: [] as number[],
    cityOff: [] as number[],
    cityCnt: [] as number[],
  };
  for (const city of citySlugs) {
    const nbs = neighbourhoodsOf(city);
    layout.nbOff.push(rows.length);
    for (const nb of nbs) {
      const k = Math.max(1, Math.ceil(nb.radius_km / 0.46));
      for (const h3 of gridDisk(latLngToCell(nb.latitude, nb.longitude, 8), k)) {
        rows.push(cellRow(rows.length, city, nb.name, h3));
      }
    }
    layout.nbCnt.push(rows.length - layout.nbOff.at(-1)!);
    const centre = cityLocation(city)!;
    layout.cityOff.push(rows.length);
    for (const h3 of gridDisk(
      latLngToCell(centre.latitude, centre.longitude, 8),
      Math.ceil(centre.radius_km / 0.8),
    )) {
      const [lat, lng] = cellToLatLng(h3);
      const near = nbs.find((nb) => distanceKm(lat, lng, nb.latitude, nb.longitude) <= nb.radius_km);
      rows.push(cellRow(rows.length, city, near?.name ?? '', h3));
    }
    layout.cityCnt.push(rows.length - layout.cityOff.at(-1)!);
  }
  return { rows, layout };
}
