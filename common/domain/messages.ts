// Messages on the Kafka topics (infra/kafka/topics.json). Producers outside this service may
// write them too, so the stream validates them again and quarantines what does not parse.
import { z } from 'zod';
import { listingSchema } from './listing.ts';

export const listingMessageSchema = z.object({
  v: z.literal(1),
  listing_id: z.uuid(),
  account_id: z.string().min(1).max(64),
  batch_id: z.uuid(),
  is_test: z.boolean(),
  received_at: z.iso.datetime({ offset: true }),
  listing: listingSchema,
});
export type ListingMessage = z.infer<typeof listingMessageSchema>;

export const viewMessageSchema = z.object({
  v: z.literal(1),
  event_id: z.string().min(1).max(128),
  listing_id: z.uuid(),
  account_id: z.string().min(1).max(64),
  is_test: z.boolean(),
  viewed_at: z.iso.datetime({ offset: true }),
  received_at: z.iso.datetime({ offset: true }),
});
export type ViewMessage = z.infer<typeof viewMessageSchema>;
