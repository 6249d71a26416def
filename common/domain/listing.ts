// The listing object of spec §2.1 as a zod schema: the single definition used by validation,
// the Kafka message type and the OpenAPI document.
import { z } from 'zod';

export const propertyTypes = ['apartment', 'house', 'studio', 'room', 'commercial', 'land'] as const;
export type PropertyType = (typeof propertyTypes)[number];
export const currencies = ['TZS', 'USD'] as const;
export type Currency = (typeof currencies)[number];

export const listingSchema = z.strictObject({
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(20_000),
  property_type: z.enum(propertyTypes),
  price: z.number().positive().finite(),
  currency: z.enum(currencies).default('TZS'),
  bedrooms: z.number().int().min(0).max(1000).optional(),
  bathrooms: z.number().int().min(0).max(1000).optional(),
  area_sqm: z.number().positive().finite().optional(),
  address: z.string().trim().max(500).optional(),
  latitude: z.number().min(-90).max(90).optional(),
  longitude: z.number().min(-180).max(180).optional(),
  amenities: z.array(z.string().trim().min(1).max(100)).max(100).optional(),
  images: z.array(z.url({ protocol: /^https?$/ })).optional(),
  video_url: z.url({ protocol: /^https?$/ }).optional(),
  whatsapp_number: z.string().optional(),
  location_id: z.uuid().optional(),
});

export type ListingInput = z.input<typeof listingSchema>;
export type Listing = z.output<typeof listingSchema>;
