// Messages on the Kafka topics (infra/kafka/topics.json). Producers outside this service may
// write them too, so the stream validates them again and quarantines what does not parse.
//
// Listings come in two forms on rls.listings.v1:
// - v1: one listing per message;
// - v2: every listing one API request created, in one message (what the ingest API publishes).
//   One message per request instead of one per listing was the largest CPU saving of both the API
//   and the stream (kafkajs encodes and decodes per message). Items keep their position: a stored
//   row carries (_offset, _item), so a replay skips exactly the items already stored.
import { z } from 'zod';
import { parseListingFast } from './listing-fast-parse.ts';
import { listingSchema, type Listing } from './listing.ts';

const header = {
  account_id: z.string().min(1).max(64),
  batch_id: z.uuid(),
  is_test: z.boolean(),
  received_at: z.iso.datetime({ offset: true }),
};

export const listingMessageSchema = z.object({
  v: z.literal(1),
  listing_id: z.uuid(),
  ...header,
  listing: listingSchema,
});
/** One listing as the stream handles it (a v1 message, or one item of a v2 message). */
export type ListingMessage = z.infer<typeof listingMessageSchema>;

/** v2 without its items, which are validated one by one (a bad item must not sink its siblings). */
export const listingBatchHeaderSchema = z.object({
  v: z.literal(2),
  ...header,
  listings: z.array(z.unknown()).min(1),
});
export const listingBatchItemSchema = z.object({ listing_id: z.uuid(), listing: listingSchema });
export type ListingBatchItem = z.infer<typeof listingBatchItemSchema>;
const listingIdSchema = listingBatchItemSchema.shape.listing_id;

/**
 * What listingBatchItemSchema gives for a common valid item, through the listing's fast path
 * (listing-fast-parse.ts), or undefined when the schema must decide (and word any error).
 */
export function parseListingBatchItemFast(raw: unknown): ListingBatchItem | undefined {
  if (!isRecord(raw) || !isRecord(raw.listing) || !listingIdSchema.safeParse(raw.listing_id).success)
    return undefined;
  const listing = parseListingFast(raw.listing);
  return listing && { listing_id: raw.listing_id as string, listing };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
export type ListingBatchHeader = Omit<z.infer<typeof listingBatchHeaderSchema>, 'v' | 'listings'>;

/**
 * A header the ingest API puts on listings messages none of whose listings has an image URL. The
 * image process consumes the whole topic but works on images only, so it skips such a message
 * without parsing it (3–4.5 µs per listing; fetching the topic, which it still does, is the larger
 * part of its CPU). Without the header (other producers, or a message with images) the message is
 * read as before: the header may only ever skip work.
 */
export const NO_IMAGES_HEADER = 'rls-images';
const NO_IMAGES_VALUE = '0';

/** The headers of the messages of a request whose listings are `items`. */
export function listingMessageHeaders(
  items: readonly { listing: Listing }[],
): Record<string, string> | undefined {
  return items.some((item) => item.listing.images?.length)
    ? undefined
    : { [NO_IMAGES_HEADER]: NO_IMAGES_VALUE };
}

/** False only when the producer said that no listing of the message has an image. */
export function mayHaveImages(message: { headers?: Record<string, unknown> }): boolean {
  const value = message.headers?.[NO_IMAGES_HEADER];
  return !(Buffer.isBuffer(value) ? value.toString() === NO_IMAGES_VALUE : value === NO_IMAGES_VALUE);
}

/** Kafka's default message.max.bytes is 1 MiB; stay below it with room for the record overhead. */
export const MAX_LISTING_MESSAGE_BYTES = 900_000;

/**
 * The v2 message values for `items` (in order): one value, or several when the encoded listings
 * would exceed MAX_LISTING_MESSAGE_BYTES. Each listing is serialised once: the whole list in one
 * JSON.stringify when it fits (the common case: no string per item, no join), else item by item.
 */
export function encodeListingBatch(
  head: ListingBatchHeader,
  items: { listing_id: string; listing: Listing }[],
): string[] {
  const start = `{"v":2,${JSON.stringify(head).slice(1, -1)},"listings":`;
  const whole = `${start}${JSON.stringify(items)}}`;
  // A UTF-16 unit is at most 3 bytes in UTF-8: the exact count only when the bound does not settle it.
  if (whole.length * 3 <= MAX_LISTING_MESSAGE_BYTES || Buffer.byteLength(whole) <= MAX_LISTING_MESSAGE_BYTES)
    return [whole];
  const prefix = `${start}[`;
  const suffix = ']}';
  const values: string[] = [];
  let parts: string[] = [];
  let bytes = prefix.length + suffix.length;
  for (const item of items) {
    const json = JSON.stringify(item);
    const size = Buffer.byteLength(json) + 1;
    if (parts.length && bytes + size > MAX_LISTING_MESSAGE_BYTES) {
      values.push(prefix + parts.join(',') + suffix);
      parts = [];
      bytes = prefix.length + suffix.length;
    }
    parts.push(json);
    bytes += size;
  }
  if (parts.length) values.push(prefix + parts.join(',') + suffix);
  return values;
}

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
