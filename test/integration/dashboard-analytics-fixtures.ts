// Data of the analytic pages' browser test (not a test file), all in test mode in Dar es Salaam
// apartments (the pages' defaults), one account per run whose key the pages get:
// - velocity: 14 flats in Masaki, 11 rented and 2 withdrawn through the API;
// - market share: 4 more active flats in Masaki and 2 in Kigamboni, against 6 other accounts with
//   3 flats each in Masaki (none over 25 % of the rest: shown) and none in Kigamboni (suppressed);
// - estimate: all of them two-bedroom flats within 1 km of the estimate form's default point;
// - seasonality: three flats a month for the 14 months before this one, stored straight into
//   `listings` (the API stamps listed_at now), so the series has the history of a provisional index.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { api, createTestKey, eventually } from '../support/api.ts';
import { insertListings } from './analytics-fixtures.ts';
import { postStatus, pushListings, waitForStatus } from './lifecycle-support.ts';

const MASAKI = { latitude: -6.7475, longitude: 39.2795 };
const KIGAMBONI = { latitude: -6.855, longitude: 39.31 };

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
    return [0, 1, 2].map((i) => ({
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

/** Seeds everything and returns the key of the account the pages show. */
export async function seedAnalyticPages(): Promise<string> {
  const own = await createTestKey({ mode: 'test' });
  const others = await Promise.all(Array.from({ length: 6 }, () => createTestKey({ mode: 'test' })));
  const exits = await pushListings(
    own.key,
    Array.from({ length: 14 }, (_, i) => near(MASAKI, i)),
  );
  await Promise.all([
    pushListings(own.key, [
      ...Array.from({ length: 4 }, (_, i) => near(MASAKI, i + 14)),
      near(KIGAMBONI, 0),
      near(KIGAMBONI, 1),
    ]),
    ...others.map((other, k) =>
      pushListings(
        other.key,
        Array.from({ length: 3 }, (_, i) => near(MASAKI, 3 * k + i)),
      ),
    ),
    seedSeasonality(),
  ]);
  const updates = exits.slice(0, 13).map((listing_id, i) => ({
    listing_id,
    status: i < 11 ? 'rented' : 'withdrawn',
  }));
  const posted = await postStatus(own.key, updates);
  expect(posted.status, JSON.stringify(posted.body)).toBe(200);
  expect(posted.body.summary.succeeded).toBe(13);
  await Promise.all(updates.map((u) => waitForStatus(own.key, u.listing_id, u.status)));
  // The velocity aggregates follow the statuses: wait until the API counts this account's rentals.
  await eventually(
    async () => {
      const res = await api('GET', '/api/v1/analytics/velocity?city=dar_es_salaam&type=apartment', {
        key: own.key,
      });
      return res.status === 200 && res.body.summary.rented >= 11 ? true : undefined;
    },
    60_000,
    'rentals counted by velocity',
  );
  return own.key;
}
