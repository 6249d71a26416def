// A listing message → one enriched row of the `listings` table (columns in `listingColumns`).
import type { ListingMessage } from '../../common/domain/messages.ts';
import { normaliseAmenities } from '../enrich/amenities.ts';
import { toTzs, type FxTable } from '../enrich/fx.ts';
import { placeOf } from '../enrich/location.ts';
import type { Provenance } from '../offset-consumer.ts';

export const listingColumns = [
  'listing_id',
  'account_id',
  'batch_id',
  'is_test',
  'listed_at',
  'stored_at',
  'title',
  'description',
  'property_type',
  'price',
  'currency',
  'price_tzs',
  'fx_rate_to_tzs',
  'bedrooms',
  'bathrooms',
  'area_sqm',
  'address',
  'latitude',
  'longitude',
  'amenities',
  'images',
  'video_url',
  'whatsapp_number',
  'location_id',
  'external_id',
  'h3_index',
  'city',
  'neighbourhood',
  'neighbourhood_id',
  'location_source',
  'version',
  '_topic',
  '_partition',
  '_offset',
  '_item',
];

export function listingRow(message: ListingMessage, provenance: Provenance, storedAt: string, fx: FxTable) {
  const l = message.listing;
  const place = placeOf(l);
  const { price_tzs, rate } = toTzs(fx, l.price, l.currency);
  return {
    listing_id: message.listing_id,
    account_id: message.account_id,
    batch_id: message.batch_id,
    is_test: message.is_test ? 1 : 0,
    // The client's listing date when given (validated at ingest), else when the API received it.
    listed_at: l.listed_at ?? message.received_at,
    stored_at: storedAt,
    title: l.title,
    description: l.description,
    property_type: l.property_type,
    price: l.price,
    currency: l.currency,
    price_tzs,
    fx_rate_to_tzs: rate,
    bedrooms: l.bedrooms ?? null,
    bathrooms: l.bathrooms ?? null,
    area_sqm: l.area_sqm ?? null,
    address: l.address ?? '',
    latitude: l.latitude ?? null,
    longitude: l.longitude ?? null,
    amenities: normaliseAmenities(l.amenities),
    images: l.images ?? [],
    video_url: l.video_url ?? '',
    whatsapp_number: l.whatsapp_number ?? '',
    location_id: l.location_id ?? null,
    external_id: l.external_id ?? '',
    ...place,
    version: 1,
    ...provenance,
  };
}
