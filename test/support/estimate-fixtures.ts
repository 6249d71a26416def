// Fixtures of the rent estimate tests (not a test file): hand-made neighbourhoods of listings,
// inserted straight into `listings` as the stream stores them (the materialized view fills
// rent_comparables and listing_lookup). Each test works on spots of its own: random places in
// rural Tanzania, away from the ten cities, with no listing of either mode within 15 km in the
// last 400 days, so parallel files and reruns never meet.
import { randomUUID } from 'node:crypto';
import { cellToLatLng, latLngToCell } from 'h3-js';
import { citySlugs } from '../../common/domain/cities.ts';
import { cityLocation, distanceKm } from '../../common/domain/locations.ts';
import { listingsTable, type ListingRow } from '../../common/warehouse/listings.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import { testClickHouse } from './api.ts';
import { storedListingRow } from './listing-rows.ts';

export interface Point {
  latitude: number;
  longitude: number;
}

/** The point `km` from `p` towards `bearingDeg` (0 = north), on the sphere of the method. */
export function offset(p: Point, km: number, bearingDeg: number): Point {
  const rad = Math.PI / 180;
  const kmPerDeg = (12_742 * Math.PI) / 360;
  return {
    latitude: p.latitude + (km * Math.cos(bearingDeg * rad)) / kmPerDeg,
    longitude: p.longitude + (km * Math.sin(bearingDeg * rad)) / (kmPerDeg * Math.cos(p.latitude * rad)),
  };
}

/**
 * A random empty spot (see above), at the centre of its resolution-8 H3 cell: a point's estimate
 * searches from there, so listings placed at a distance from the spot are that far from the search.
 */
export async function emptySpot(): Promise<Point> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const p = { latitude: -10.5 + Math.random() * 8.5, longitude: 31 + Math.random() * 7.5 };
    const nearCity = citySlugs.some((city) => {
      const c = cityLocation(city)!;
      return distanceKm(p.latitude, p.longitude, c.latitude, c.longitude) < c.radius_km + 20;
    });
    if (nearCity) continue;
    const result = await testClickHouse().query({
      query: `SELECT count() AS n FROM rent_comparables
              WHERE listed_at >= now() - INTERVAL 400 DAY
                AND abs(latitude - {lat:Float64}) < 0.15 AND abs(longitude - {lng:Float64}) < 0.15`,
      query_params: { lat: p.latitude, lng: p.longitude },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ n: string }>();
    if (Number(row?.n) === 0) {
      const [latitude, longitude] = cellToLatLng(latLngToCell(p.latitude, p.longitude, 8));
      return { latitude, longitude };
    }
  }
  throw new Error('no empty spot for the estimate tests');
}

export interface EstimateListing {
  at: Point;
  /** Days before now (or before `listedAt`'s base when given explicitly). */
  daysOld?: number;
  listedAt?: Date;
  priceTzs: number;
  /** Original price and currency (default: priceTzs in TZS). */
  price?: number;
  currency?: 'TZS' | 'USD';
  type?: string;
  bedrooms?: number | null;
  bathrooms?: number | null;
  areaSqm?: number | null;
  isTest?: 0 | 1;
  accountId?: string;
  title?: string;
  address?: string;
  externalId?: string;
  listingId?: string;
  /** No coordinates and no place (h3_index 0): stored, but no comparable of anything. */
  unplaced?: boolean;
}

const iso = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

export function listingRow(l: EstimateListing): ListingRow {
  const listedAt = l.listedAt ?? new Date(Date.now() - (l.daysOld ?? 1) * 86_400_000);
  const price = l.price ?? l.priceTzs;
  return storedListingRow({
    listing_id: l.listingId ?? randomUUID(),
    account_id: l.accountId ?? 'estimate-test',
    is_test: l.isTest ?? 0,
    listed_at: iso(listedAt),
    title: l.title ?? `Estimate fixture ${randomUUID()}`,
    description: 'estimate fixture',
    property_type: l.type ?? 'apartment',
    price,
    currency: l.currency ?? 'TZS',
    price_tzs: l.priceTzs,
    fx_rate_to_tzs: l.priceTzs / price,
    bedrooms: l.bedrooms === undefined ? 2 : l.bedrooms,
    bathrooms: l.bathrooms === undefined ? 1 : l.bathrooms,
    area_sqm: l.areaSqm ?? null,
    address: l.address ?? '',
    latitude: l.unplaced ? null : l.at.latitude,
    longitude: l.unplaced ? null : l.at.longitude,
    external_id: l.externalId ?? '',
    h3_index: l.unplaced ? '0' : BigInt(`0x${latLngToCell(l.at.latitude, l.at.longitude, 8)}`).toString(),
    city: '',
    neighbourhood: '',
    location_source: l.unplaced ? 'none' : 'coordinates',
    _topic: 'estimate-test',
  });
}

/** Inserts the listings; returns their ids in order. */
export async function insertEstimateListings(listings: EstimateListing[]): Promise<string[]> {
  const rows = listings.map(listingRow);
  await insertRows(testClickHouse(), listingsTable, rows);
  return rows.map((r) => r.listing_id);
}
