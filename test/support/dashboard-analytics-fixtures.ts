// Data of the analytic pages' browser test (not a test file), all in test mode in Dar es Salaam
// apartments (the pages' defaults), one account per run whose key the pages get:
// - velocity: 5 flats in Masaki, 2 rented and 1 withdrawn through the API (few: a later run on the
//   same stack counts this account among the others, where it must not dominate any figure);
// - market share: 4 more active flats in Masaki and 2 in a neighbourhood whose market figures are
//   suppressed (chosen at seeding; the test withdraws them afterwards),
//   against 6 other accounts with 6 flats each in Masaki, two rented and one withdrawn (each figure
//   has 6 other accounts behind it, none over 25 % of the rest: shown) and none in the lonely one
//   (suppressed);
// - estimate: all of them two-bedroom flats within 1 km of the estimate form's default point;
// - seasonality: six flats a month (six accounts: the months' figures are shown) for the 14 months
//   before this one, stored straight into `listings` (the API stamps listed_at now), so the series
//   has the history of a provisional index.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { api, createTestKey, eventually } from './api.ts';
import locations from '../../infra/locations/locations.json' with { type: 'json' };
import { insertListings } from './analytics-fixtures.ts';
import { postStatus, pushListings, waitForStatus } from './lifecycle.ts';

const MASAKI = { latitude: -6.7475, longitude: 39.2795 };

const near = (place: { latitude: number; longitude: number }, i: number) => ({
  latitude: place.latitude + ((i % 5) - 2) * 0.0012,
  longitude: place.longitude + (Math.floor(i / 5) - 1) * 0.0012,
  price: 1_000_000 + 50_000 * (i % 7),
});

async function seedSeasonality(): Promise<void> {
  const now = new Date();
  const rows = Array.from({ length: 14 }, (_, back) => {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1 - back, 10));
    const day = month.toISOString().slice(0, 10);
    // One account per listing: in market share this history is a crowd, no dominant account.
    return [0, 1, 2, 3, 4, 5].map((i) => ({
      account_id: `dashboard-seasonality-${randomUUID()}`,
      is_test: 1 as const,
      listed_at: `${day} 0${i}:00:00`,
      property_type: 'apartment',
      price_tzs: 900_000 + 40_000 * (month.getUTCMonth() % 6) + 10_000 * i,
      city: 'dar_es_salaam',
      neighbourhood: 'Mbagala',
      bedrooms: 2,
    }));
  }).flat();
  await insertListings(rows);
}

/**
 * A Dar es Salaam neighbourhood whose market figures are suppressed for an account with nothing
 * there (no entry, or suppressed: fewer than 5 other accounts or one dominant). Suppression depends
 * on the other accounts only, so it stays suppressed once this account lists there.
 */
async function lonelyNeighbourhood(key: string) {
  const res = await api('GET', '/api/v1/analytics/market-share?city=dar_es_salaam&type=apartment', { key });
  expect(res.status).toBe(200);
  const entries = res.body.by_neighborhood as { name: string; suppressed: boolean }[];
  const shown = new Set(entries.filter((n) => !n.suppressed).map((n) => n.name));
  const free = locations.neighbourhoods.find(
    (n) => n.city === 'dar_es_salaam' && !shown.has(n.name) && !['Masaki', 'Mbagala'].includes(n.name),
  );
  if (!free) throw new Error('no Dar es Salaam neighbourhood with suppressed market figures left');
  return free;
}

export interface Seeded {
  key: string;
  /** The neighbourhood whose market figures must be suppressed (only this account there). */
  lonely: string;
  /** Withdraws the lonely neighbourhood's listings, so that it is free for the next run. */
  cleanUp(): Promise<void>;
}

/** Seeds everything; the pages show the returned key's account. */
export async function seedAnalyticPages(): Promise<Seeded> {
  // Seeding polls and every page's Show use this key: beyond the default 60 requests a minute.
  const own = await createTestKey({ mode: 'test', tier: 'enterprise', rateLimit: 100_000 });
  const lonely = await lonelyNeighbourhood(own.key);
  const others = await Promise.all(Array.from({ length: 6 }, () => createTestKey({ mode: 'test' })));
  const exits = await pushListings(
    own.key,
    Array.from({ length: 5 }, (_, i) => near(MASAKI, i)),
  );
  const [alone, , ...theirs] = await Promise.all([
    pushListings(own.key, [near(lonely, 0), near(lonely, 1)]),
    pushListings(
      own.key,
      Array.from({ length: 4 }, (_, i) => near(MASAKI, i + 5)),
    ),
    ...others.map((other, k) =>
      pushListings(
        other.key,
        Array.from({ length: 6 }, (_, i) => near(MASAKI, 6 * k + i)),
      ),
    ),
    seedSeasonality(),
  ]);
  const updates = exits.slice(0, 3).map((listing_id, i) => ({
    listing_id,
    status: i < 2 ? 'rented' : 'withdrawn',
  }));
  const posted = await postStatus(own.key, updates);
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
  expect(posted.body.summary.succeeded).toBe(3);
  await Promise.all(updates.map((u) => waitForStatus(own.key, u.listing_id, u.status)));
  // Each other account rents two flats out and withdraws one.
  await Promise.all(
    others.map(async (other, k) => {
      const ids = theirs[k] as string[];
      const their = [
        { listing_id: ids[0]!, status: 'rented' },
        { listing_id: ids[1]!, status: 'rented' },
        { listing_id: ids[2]!, status: 'withdrawn' },
      ];
      expect((await postStatus(other.key, their)).status).toBe(200);
      await Promise.all(their.map((u) => waitForStatus(other.key, u.listing_id, u.status)));
    }),
  );
  // The velocity aggregates follow the statuses: wait until the API counts this account's rentals.
  await eventually(
    async () => {
      const res = await api('GET', '/api/v1/analytics/velocity?city=dar_es_salaam&type=apartment', {
        key: own.key,
      });
      const masaki = res.body.by_neighborhood?.find((n: { name: string }) => n.name === 'Masaki');
      return res.status === 200 && masaki?.rented >= 14 ? true : undefined;
    },
    60_000,
    "rentals counted by velocity (Masaki's 14)",
  );
  return {
    key: own.key,
    lonely: lonely.name,
    async cleanUp() {
      await postStatus(
        own.key,
        alone.map((listing_id) => ({ listing_id, status: 'withdrawn' })),
      );
    },
  };
}
