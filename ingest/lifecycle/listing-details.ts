// GET /listings/{id} as a service: the listing as stored, with its current status and its images'
// check results. Only the owning account sees it (anyone else gets the same 404 as for an unknown
// id), and only keys of the listing's mode: a test key never reads live listings, nor a live key
// test ones unless it asks with test_mode=true (its own test_mode pushes), as for status updates.
// Visible once stored (the batch is completed).
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import { isUuid } from '../../common/ids.ts';
import {
  listingIdentityRecord,
  readListingStates,
  type ListingState,
} from '../../common/lifecycle/states.ts';
import { listingLookupTable } from '../../common/warehouse/listing-lookup.ts';
import { listingsTable } from '../../common/warehouse/listings.ts';
import { defineQuery } from '../../common/warehouse/query.ts';
import { imageRecords, presentImages, type ImageRecord } from '../listings/listing-images.ts';
import { storedListingSchema, type StoredListing } from './schemas.ts';

// A row of listingQuery: the answer's own fields where the column is selected in the answer's form
// (times as ISO text), and the columns the answer is derived from ('' where it says null, the H3
// cell as hex).
const listingRecord = storedListingSchema
  .pick({
    listed_at: true,
    stored_at: true,
    title: true,
    description: true,
    property_type: true,
    price: true,
    currency: true,
    price_tzs: true,
    bedrooms: true,
    bathrooms: true,
    area_sqm: true,
    latitude: true,
    longitude: true,
    amenities: true,
  })
  .extend({
    ...listingIdentityRecord.shape,
    // Ids as text (any UUID the table holds).
    batch_id: z.string(),
    location_id: z.string().nullable(),
    address: z.string(),
    images: z.array(z.string()),
    video_url: z.string(),
    whatsapp_number: z.string(),
    h3: z.string(),
  });
type ListingRecord = z.infer<typeof listingRecord>;

// By the full sort key of `listings`, found through listing_lookup (sorted by id). The key columns
// are named through the table (`l.`): unqualified, `listing_id` and `property_type` would be the
// select list's toString() aliases, which no index can use (test/integration/query-index-use.test.ts).
export const listingQuery = defineQuery({
  name: 'stored_listing',
  params: z.object({ id: z.string(), account: z.string() }),
  row: listingRecord,
  sql: `
  SELECT toString(listing_id) AS listing_id, account_id, toString(batch_id) AS batch_id, is_test,
         external_id, formatDateTime(listed_at, '%Y-%m-%dT%H:%i:%SZ') AS listed_at,
         formatDateTime(stored_at, '%Y-%m-%dT%H:%i:%SZ') AS stored_at, title, description,
         toString(property_type) AS property_type, price, toString(currency) AS currency, price_tzs,
         bedrooms, bathrooms, area_sqm, address, latitude, longitude, amenities, images, video_url,
         whatsapp_number, toString(location_id) AS location_id, city, neighbourhood,
         if(h3_index = 0, '', h3ToString(h3_index)) AS h3
  FROM ${listingsTable.name} AS l
  WHERE (l.is_test, l.city, l.property_type, l.listing_id) IN (
          SELECT is_test, city, property_type, listing_id FROM ${listingLookupTable.name}
          WHERE listing_id = {id:UUID})
    AND account_id = {account:String}
  LIMIT 1`,
});

export async function storedListing(
  clickhouse: ClickHouseClient,
  auth: ApiKeyRecord,
  rawId: string,
  testMode = false,
): Promise<StoredListing> {
  const notFound = () => new AppError('not_found', `No listing ${rawId} in this account`);
  if (!isUuid(rawId)) throw notFound();
  const id = rawId.toLowerCase();
  const [found, checks, states] = await Promise.all([
    listingQuery.run(clickhouse, { id, account: auth.account_id }),
    imageRecords(clickhouse, id),
    readListingStates(clickhouse, [id]),
  ]).catch((error: unknown) => {
    throw dependencyUnavailable('clickhouse', error);
  });
  const [listing] = found.rows;
  const isTest = auth.mode === 'test' || testMode;
  if (!listing || Number(listing.is_test) !== (isTest ? 1 : 0)) throw notFound();
  return present(listing, states.get(id), checks);
}

const orNull = (value: string) => (value === '' ? null : value);
const iso = (ms: number) => new Date(ms).toISOString();

function present(
  l: ListingRecord,
  state: ListingState | undefined,
  checks: Map<number, ImageRecord>,
): StoredListing {
  return {
    listing_id: l.listing_id,
    batch_id: l.batch_id,
    test_mode: Number(l.is_test) === 1,
    external_id: orNull(l.external_id),
    // A listing stored a moment ago may not have its state row yet: it starts active.
    status: state?.status ?? 'active',
    status_at: state ? iso(state.status_at) : l.listed_at,
    listed_at: l.listed_at,
    stored_at: l.stored_at,
    updated_at: state ? iso(state.updated_at) : l.stored_at,
    title: l.title,
    description: l.description,
    property_type: l.property_type,
    price: l.price,
    currency: l.currency,
    price_tzs: l.price_tzs,
    bedrooms: l.bedrooms,
    bathrooms: l.bathrooms,
    area_sqm: l.area_sqm,
    address: orNull(l.address),
    latitude: l.latitude,
    longitude: l.longitude,
    amenities: l.amenities,
    // Image check and photo analysis (tags, size, reuse): ingest/listings/listing-images.ts.
    images: presentImages(l.images, checks),
    video_url: orNull(l.video_url),
    whatsapp_number: orNull(l.whatsapp_number),
    location_id: l.location_id,
    city: orNull(l.city),
    neighbourhood: orNull(l.neighbourhood),
    h3_index: orNull(l.h3),
  };
}
