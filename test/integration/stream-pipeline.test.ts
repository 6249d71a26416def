// The stream stores listings enriched and once per id, view events enriched from the listing, and
// poison messages in quarantine without blocking the partition.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { neighbourhoodsOf } from '../../common/domain/locations.ts';
import { api, batchCompleted, createTestKey, eventually, sampleListing } from '../support/api.ts';
import { closeProducer, listingMessage, publish, rows, storedCounts } from '../support/stream.ts';

afterAll(closeProducer);

interface StoredListing {
  city: string;
  neighbourhood: string;
  neighbourhood_id: string | null;
  location_source: string;
  h3_index: string;
  price_tzs: number;
  fx_rate_to_tzs: number;
  amenities: string[];
  listed_at: string;
  external_id: string;
}

async function stored(listingId: string): Promise<StoredListing | undefined> {
  const [row] = await rows<StoredListing>(
    `SELECT city, neighbourhood, toString(neighbourhood_id) AS neighbourhood_id, location_source,
            toString(h3_index) AS h3_index, price_tzs, fx_rate_to_tzs, amenities,
            formatDateTime(listed_at, '%Y-%m-%dT%H:%i:%SZ') AS listed_at, external_id
     FROM listings WHERE listing_id = {id:UUID}`,
    { id: listingId },
  );
  return row;
}

describe('stream: listings', () => {
  it('happy: enriches an accepted listing (cell, neighbourhood, TZS price, amenities) and completes its batch', async () => {
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: {
        listings: [
          sampleListing({
            price: 1_000,
            currency: 'USD',
            latitude: -6.747,
            longitude: 39.279,
            amenities: [' Wi-Fi ', 'wifi', 'Swimming Pool', 'GENERATOR'],
          }),
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.results[0].listing_id as string;
    const row = await eventually(() => stored(id), 30_000, 'listing stored');
    expect(row).toMatchObject({
      city: 'dar_es_salaam',
      neighbourhood: 'Masaki',
      location_source: 'coordinates',
      price_tzs: 2_500_000,
      fx_rate_to_tzs: 2_500,
      amenities: ['wifi', 'pool', 'generator'],
    });
    expect(row.h3_index).not.toBe('0');
    const batch = await batchCompleted(key, created.body.batch_id);
    expect(batch.status).toBe('completed');
  });

  it('happy: resolves the place from location_id first, then from the address; keeps listed_at and external_id', async () => {
    const { account_id } = await createTestKey();
    const mikocheni = neighbourhoodsOf('arusha').find((n) => n.name === 'Njiro')!;
    const byId = listingMessage(account_id, {
      ...sampleListing({ latitude: undefined, longitude: undefined }),
      location_id: mikocheni.id,
      listed_at: '2026-01-15T10:00:00+03:00',
      external_id: 'crm-42',
    });
    const byAddress = listingMessage(account_id, {
      ...sampleListing({ latitude: undefined, longitude: undefined }),
      address: 'Plot 7, Isamilo, Mwanza',
    });
    await publish(
      'rls.listings.v1',
      [byId, byAddress].map((m) => ({ key: m.listing_id, value: JSON.stringify(m) })),
    );
    const a = await eventually(() => stored(byId.listing_id), 30_000, 'listing by id stored');
    expect(a).toMatchObject({
      city: 'arusha',
      neighbourhood: 'Njiro',
      neighbourhood_id: mikocheni.id,
      location_source: 'location_id',
      listed_at: '2026-01-15T07:00:00Z',
      external_id: 'crm-42',
    });
    expect(a.h3_index).not.toBe('0'); // the neighbourhood's centre cell
    const b = await eventually(() => stored(byAddress.listing_id), 30_000, 'listing by address stored');
    expect(b).toMatchObject({ city: 'mwanza', neighbourhood: 'Isamilo', location_source: 'address' });
  });

  it('error: a listing id published twice at different offsets is stored once', async () => {
    const { account_id } = await createTestKey();
    const message = listingMessage(account_id, sampleListing());
    await publish('rls.listings.v1', [{ key: message.listing_id, value: JSON.stringify(message) }]);
    await eventually(async () =>
      (await storedCounts([message.listing_id])).get(message.listing_id) ? true : undefined,
    );
    await publish('rls.listings.v1', [
      { key: message.listing_id, value: JSON.stringify({ ...message, batch_id: randomUUID() }) },
    ]);
    // A follower published after the duplicate, on the same partition (same key), proves it was consumed.
    const follower = { ...listingMessage(account_id, sampleListing()), listing_id: randomUUID() };
    await publish('rls.listings.v1', [{ key: message.listing_id, value: JSON.stringify(follower) }]);
    await eventually(async () =>
      (await storedCounts([follower.listing_id])).get(follower.listing_id) ? true : undefined,
    );
    expect((await storedCounts([message.listing_id])).get(message.listing_id)).toBe(1);
    const [lookup] = await rows<{ c: string }>(
      'SELECT count() AS c FROM listing_lookup WHERE listing_id = {id:UUID}',
      { id: message.listing_id },
    );
    expect(Number(lookup!.c)).toBe(1);
  });

  it('error: malformed messages go to quarantine and the dead letters; the partition keeps flowing', async () => {
    const { account_id } = await createTestKey();
    const key = randomUUID();
    const good = listingMessage(account_id, sampleListing());
    await publish('rls.listings.v1', [
      { key, value: `{"not json ${account_id}` },
      {
        key,
        value: JSON.stringify({ ...listingMessage(account_id, sampleListing()), listing: { title: 'x' } }),
      },
      { key, value: JSON.stringify(good) },
    ]);
    await eventually(
      async () => ((await storedCounts([good.listing_id])).get(good.listing_id) ? true : undefined),
      30_000,
    );
    const quarantined = await eventually(
      async () => {
        const found = await rows<{ error: string }>(
          `SELECT error FROM quarantine WHERE source = 'listings' AND position(payload, {account:String}) > 0`,
          { account: account_id },
        );
        return found.length === 2 ? found : undefined;
      },
      30_000,
      'two quarantined messages',
    );
    const errors = quarantined.map((q) => q.error).join(' | ');
    expect(errors).toMatch(/not JSON/);
    expect(errors).toMatch(/listing\.price/);
  });
});

describe('stream: view events', () => {
  it("happy: a view is stored with its listing's cell, city and type; an unknown listing gets h3_index 0", async () => {
    const { account_id } = await createTestKey();
    const listing = listingMessage(account_id, sampleListing({ property_type: 'house' }));
    await publish('rls.listings.v1', [{ key: listing.listing_id, value: JSON.stringify(listing) }]);
    const storedListing = await eventually(() => stored(listing.listing_id), 30_000, 'listing stored');
    // The views look the listing up in listing_lookup, whose rows (a materialized view of the same
    // insert) can trail `listings` for a moment; a view before them is stored as unknown by design.
    await eventually(
      async () => {
        const [r] = await rows<{ c: string }>(
          'SELECT count() AS c FROM listing_lookup WHERE listing_id = {id:UUID}',
          { id: listing.listing_id },
        );
        return Number(r!.c) === 1 ? true : undefined; // 26.x sends UInt64 counts as JSON numbers
      },
      60_000,
      'listing in listing_lookup',
    );
    const now = new Date().toISOString();
    const view = (listingId: string) => ({
      v: 1,
      event_id: randomUUID(),
      listing_id: listingId,
      account_id,
      is_test: false,
      viewed_at: now,
      received_at: now,
    });
    const known = view(listing.listing_id);
    const unknown = view(randomUUID());
    await publish(
      'rls.views.v1',
      [known, known, unknown].map((v) => ({ key: v.listing_id, value: JSON.stringify(v) })),
    );
    const found = await eventually(
      async () => {
        const r = await rows<{ event_id: string; h3_index: string; city: string; property_type: string }>(
          `SELECT event_id, toString(h3_index) AS h3_index, city, toString(property_type) AS property_type
         FROM view_events WHERE account_id = {account:String} ORDER BY city`,
          { account: account_id },
        );
        return r.length >= 2 ? r : undefined;
      },
      30_000,
      'views stored',
    );
    expect(found).toEqual([
      { event_id: unknown.event_id, h3_index: '0', city: '', property_type: 'unknown' },
      {
        event_id: known.event_id,
        h3_index: storedListing.h3_index,
        city: 'dar_es_salaam',
        property_type: 'house',
      },
    ]);
  }, 180_000);
});
