// The listing object of spec §2.1 as a zod schema: the single definition used by validation,
// the Kafka message type and the OpenAPI document. This is the *structural* schema; rules that
// depend on context (the key's tier, the clock, the locations dataset) live in
// ingest/listings/validate.ts so that the stream can re-validate old messages with this schema.
import { z } from 'zod';
import { text } from './text.ts';

export const propertyTypes = ['apartment', 'house', 'studio', 'room', 'commercial', 'land'] as const;
export type PropertyType = (typeof propertyTypes)[number];
export const currencies = ['TZS', 'USD'] as const;
export type Currency = (typeof currencies)[number];

export const MAX_TITLE_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 20_000;
/** The largest image count of any tier; each key's tier limit is checked on top (tiers.ts). */
export const MAX_IMAGES_ANY_TIER = 50;
export const MAX_URL_LENGTH = 2_048;
/** Bounds of the schema below, shared with its fast path (listing-fast-parse.ts). */
export const listingBounds = {
  maxPrice: 1e12,
  maxRooms: 1000,
  maxAreaSqm: 1e7,
  maxAddressLength: 500,
  maxAmenities: 100,
  maxAmenityLength: 100,
} as const;
/** Client references: printable, no spaces, so they are safe in logs, keys and SQL literals. */
export const externalIdPattern = /^[A-Za-z0-9._:/#-]{1,128}$/;

// A DNS name or an IP literal (the WHATWG-parsed host: 203.0.113.7, [2001:db8::7]). Whether the
// address may be called is the outbound policy's decision when the image is fetched
// (common/outbound/), exactly as for a name that resolves to it; validation only checks the form.
const unanchored = (pattern: RegExp) => pattern.source.replace(/^\^/, '').replace(/\$$/, '');
const urlHost = new RegExp(
  `^(?:${unanchored(z.regexes.domain)}|${unanchored(z.regexes.ipv4)}|\\[(?:${unanchored(z.regexes.ipv6)})\\])$`,
);

const httpUrl = text()
  .check(z.url({ protocol: /^https?$/, hostname: urlHost }))
  .max(MAX_URL_LENGTH)
  .meta({ description: 'An absolute http:// or https:// URL with a DNS host name or an IP address' });

export const listingSchema = z
  .strictObject({
    title: text().trim().min(1).max(MAX_TITLE_LENGTH),
    description: text().trim().min(1).max(MAX_DESCRIPTION_LENGTH),
    property_type: z.enum(propertyTypes),
    price: z
      .number()
      .positive()
      .max(listingBounds.maxPrice)
      .meta({ description: 'Monthly rent in `currency`' }),
    currency: z.enum(currencies).default('TZS'),
    bedrooms: z.number().int().min(0).max(listingBounds.maxRooms).optional(),
    bathrooms: z.number().int().min(0).max(listingBounds.maxRooms).optional(),
    area_sqm: z.number().positive().max(listingBounds.maxAreaSqm).optional(),
    address: text().trim().min(1).max(listingBounds.maxAddressLength).optional(),
    latitude: z.number().min(-90).max(90).optional(),
    longitude: z.number().min(-180).max(180).optional(),
    amenities: z
      .array(text().trim().min(1).max(listingBounds.maxAmenityLength))
      .max(listingBounds.maxAmenities)
      .optional(),
    images: z.array(httpUrl).max(MAX_IMAGES_ANY_TIER).optional(),
    video_url: httpUrl.optional(),
    whatsapp_number: text().check(z.e164()).meta({ description: 'E.164, e.g. +255712345678' }).optional(),
    location_id: text().check(z.uuid()).optional(),
    external_id: text()
      .regex(externalIdPattern)
      .optional()
      .meta({ description: 'Your own reference for the listing; the duplicate criterion when given' }),
    listed_at: text()
      .check(z.iso.datetime({ offset: true }))
      .optional()
      .meta({ description: 'When the property was listed (default: time received); ≤ 2 years old' }),
  })
  .meta({ title: 'Listing' });

export type ListingInput = z.input<typeof listingSchema>;
export type Listing = z.output<typeof listingSchema>;

/** Generous bounding box of mainland Tanzania, Zanzibar and Pemba. */
const tanzania = { minLat: -11.8, maxLat: -0.9, minLng: 29.2, maxLng: 40.6 };

export function isInsideTanzania(latitude: number, longitude: number): boolean {
  return (
    latitude >= tanzania.minLat &&
    latitude <= tanzania.maxLat &&
    longitude >= tanzania.minLng &&
    longitude <= tanzania.maxLng
  );
}
