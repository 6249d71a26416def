// The listing image a per-image row is about: `image_checks` and `listing_images` both lead with it.
import { z } from 'zod';

/** As ClickHouse's JSON output renders it, for reads that write a row back. */
export const listingImageKeySchema = z.object({
  listing_id: z.string(),
  image_index: z.number(),
  batch_id: z.string(),
  account_id: z.string(),
  is_test: z.union([z.literal(0), z.literal(1)]),
  url: z.string(),
});
export type ListingImageKey = z.infer<typeof listingImageKeySchema>;

export const listingImageKeyColumns = [
  'listing_id',
  'image_index',
  'batch_id',
  'account_id',
  'is_test',
  'url',
] as const satisfies readonly (keyof ListingImageKey)[];
