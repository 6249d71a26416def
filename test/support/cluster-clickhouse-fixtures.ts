// The shard tests' data set (not a test file): listings, views and status changes of a dozen
// accounts in three cities over the last 400 days, from a fixed seed, so the same rows can be
// loaded into a single-server database and a sharded one. Prices are whole thousands of TZS, so
// sums are exact in any order (a float sum that depends on the order of shards would differ in
// its last bit without anything being wrong).
import fs from 'node:fs';
import path from 'node:path';
import { latLngToCell } from 'h3-js';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ListingStatusChangeRow } from '../../common/warehouse/lifecycle.ts';
import { listingStatusChangesTable } from '../../common/warehouse/lifecycle.ts';
import { listingsTable, type ListingRow } from '../../common/warehouse/listings.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import { viewEventsTable, type ViewEventRow } from '../../common/warehouse/view-events.ts';
import { repoRoot } from '../../infra/local/settings.mjs';
import { storedListingRow } from './listing-rows.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';

interface Neighbourhood {
  city: string;
  slug: string;
  name: string;
  latitude: number;
  longitude: number;
}

export const fixtureCities = ['dar_es_salaam', 'arusha', 'mwanza'] as const;
export const fixtureTypes = ['apartment', 'house'] as const;

/** mulberry32: a small seeded generator, so both databases get byte-identical rows. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

function uuid(next: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

export interface Fixtures {
  listings: ListingRow[];
  views: ViewEventRow[];
  changes: ListingStatusChangeRow[];
}

/** `own` is the account of the key the test calls the API with (≈10 % of the listings). */
export function buildFixtures(own: string, now = Date.now(), count = 1500): Fixtures {
  const next = random(20261126);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const locations = JSON.parse(
    fs.readFileSync(path.join(repoRoot, 'infra/locations/locations.json'), 'utf8'),
  ) as { neighbourhoods: Neighbourhood[] };
  const accounts = [own, ...Array.from({ length: 11 }, (_, i) => `shard-fixture-${i}`)];
  const listings: ListingRow[] = [];
  const views: ViewEventRow[] = [];
  const changes: ListingStatusChangeRow[] = [];
  for (let i = 0; i < count; i++) {
    const city = pick(fixtureCities);
    const place = pick(locations.neighbourhoods.filter((n) => n.city === city));
    const type = pick(fixtureTypes);
    const latitude = Math.round((place.latitude + (next() - 0.5) * 0.02) * 1e5) / 1e5;
    const longitude = Math.round((place.longitude + (next() - 0.5) * 0.02) * 1e5) / 1e5;
    const listedAt = now - Math.floor(next() * 400 * DAY_MS);
    const bedrooms = Math.floor(next() * 6);
    const price = (200 + Math.floor(next() * 60) * 50) * 1000;
    const id = uuid(next);
    const account = next() < 0.1 ? own : pick(accounts.slice(1));
    const row = storedListingRow({
      listing_id: id,
      account_id: account,
      batch_id: uuid(next),
      is_test: 0,
      listed_at: iso(listedAt),
      title: `Fixture ${type} ${i}`,
      description: 'shard fixture',
      property_type: type,
      price_tzs: price,
      bedrooms,
      bathrooms: 1 + (bedrooms > 2 ? 1 : 0),
      area_sqm: 30 + bedrooms * 25,
      latitude,
      longitude,
      h3_index: BigInt(`0x${latLngToCell(latitude, longitude, 8)}`).toString(),
      city,
      neighbourhood: place.name,
      location_source: 'coordinates',
      _topic: 'fixture',
      _offset: String(i),
    });
    listings.push(row);
    const viewCount = Math.floor(next() * 5);
    for (let v = 0; v < viewCount; v++) {
      const viewedAt = Math.min(now, listedAt + Math.floor(next() * 60 * DAY_MS));
      views.push({
        event_id: uuid(next),
        listing_id: id,
        account_id: 'portal',
        is_test: 0,
        viewed_at: iso(viewedAt),
        received_at: iso(viewedAt),
        h3_index: row.h3_index,
        city,
        neighbourhood: place.name,
        property_type: type,
        listing_account_id: account,
        _topic: 'fixture-views',
        _partition: 0,
        _offset: String(views.length),
        _item: 0,
      });
    }
    const exit = next();
    const days = 1 + Math.floor(next() * 90);
    const changedAt = listedAt + days * DAY_MS;
    if (exit < 0.45 && changedAt < now) {
      const status = exit < 0.35 ? 'rented' : 'withdrawn';
      changes.push({
        listing_id: id,
        account_id: account,
        is_test: 0,
        external_id: '',
        listed_at: row.listed_at,
        property_type: type,
        city,
        neighbourhood: place.name,
        status,
        previous_status: 'active',
        changed_at: iso(changedAt),
        recorded_at: iso(changedAt),
        source: 'api',
        snapshot_id: '',
        rent_agreed: status === 'rented' ? price : null,
        rent_currency: status === 'rented' ? 'TZS' : null,
        rent_agreed_tzs: status === 'rented' ? price : null,
        transition: 'exit',
        spell_started_at: row.listed_at,
        exited_at: iso(changedAt),
        exit_days: days,
        version: 1,
        _topic: 'fixture-status',
        _partition: 0,
        _offset: String(changes.length),
        _item: 0,
      });
    }
  }
  return { listings, views, changes };
}

/** Loads the fixtures in a few inserts per table, as the stream would (views after listings). */
export async function loadFixtures(client: ClickHouseClient, fixtures: Fixtures): Promise<void> {
  const chunk = <T>(rows: T[]) =>
    Array.from({ length: Math.ceil(rows.length / 500) }, (_, i) => rows.slice(i * 500, i * 500 + 500));
  for (const rows of chunk(fixtures.listings)) await insertRows(client, listingsTable, rows);
  for (const rows of chunk(fixtures.views)) await insertRows(client, viewEventsTable, rows);
  for (const rows of chunk(fixtures.changes)) await insertRows(client, listingStatusChangesTable, rows);
}
