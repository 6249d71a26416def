// A whole `listings` row as the stream stores it, for fixtures that insert straight into ClickHouse:
// the fixture names the columns it sets, every other column holds what the stream stores for a
// listing without it (no media, contact, external id or place; price in TZS, version 1).
import { randomUUID } from 'node:crypto';
import type { ListingRow } from '../../common/warehouse/listings.ts';

type Named = 'listing_id' | 'account_id' | 'is_test' | 'listed_at' | 'title' | 'description';
type Placed = 'property_type' | 'price_tzs' | 'city' | 'neighbourhood' | '_topic';

export function storedListingRow(row: Pick<ListingRow, Named | Placed> & Partial<ListingRow>): ListingRow {
  return {
    batch_id: randomUUID(),
    stored_at: row.listed_at,
    price: row.price_tzs,
    currency: 'TZS',
    fx_rate_to_tzs: 1,
    bedrooms: null,
    bathrooms: null,
    area_sqm: null,
    address: '',
    latitude: null,
    longitude: null,
    amenities: [],
    images: [],
    video_url: '',
    whatsapp_number: '',
    location_id: null,
    external_id: '',
    h3_index: '0',
    neighbourhood_id: null,
    location_source: 'none',
    version: 1,
    _partition: 0,
    _offset: '0',
    _item: 0,
    ...row,
  };
}
