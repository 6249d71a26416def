// A message of rls.listings.v1 → its listings, each validated on its own (common/domain/messages.ts):
// v1 holds one listing (item 0), v2 every listing of one API request (item = position). A message
// that is not JSON or whose header is invalid is one bad item 0; a bad item of a valid v2 message is
// bad alone, and its quarantine payload is a standalone v1 message, so it can be fixed and replayed.
import type { KafkaMessage } from 'kafkajs';
import {
  listingBatchHeaderSchema,
  listingBatchItemSchema,
  listingMessageSchema,
  parseListingBatchItemFast,
  type ListingMessage,
} from '../../common/domain/messages.ts';
import { parseJson, validate } from '../parse.ts';

export type DecodedItem =
  | { item: number; ok: true; value: ListingMessage }
  | { item: number; ok: false; error: string; payload: string | Buffer | null };

/**
 * `select`, when given, sees each raw listing object first; items it declines are left out without
 * validation (the image checker only wants listings with images).
 */
export function decodeListings(
  message: KafkaMessage,
  select?: (rawListing: unknown) => boolean,
): DecodedItem[] {
  // The whole message is bad: one item 0 carrying the original bytes.
  const whole = (error: string): DecodedItem => ({ item: 0, ok: false, error, payload: message.value });
  const json = parseJson(message);
  if (!json.ok) return [whole(json.error)];
  const version = (json.value as { v?: unknown } | null)?.v;
  if (version !== 2) {
    if (select && !select((json.value as { listing?: unknown } | null)?.listing)) return [];
    const single = validate(listingMessageSchema, json.value);
    return [single.ok ? { item: 0, ok: true, value: single.value } : whole(single.error)];
  }
  const head = validate(listingBatchHeaderSchema, json.value);
  if (!head.ok) return [whole(head.error)];
  const { listings, v: _v, ...header } = head.value;
  const out: DecodedItem[] = [];
  listings.forEach((raw, item) => {
    if (select && !select((raw as { listing?: unknown } | null)?.listing)) return;
    // The API's items take the listing's fast path (the schema's own output, a fraction of its CPU).
    const fast = parseListingBatchItemFast(raw);
    const parsed = fast ? { ok: true as const, value: fast } : validate(listingBatchItemSchema, raw);
    if (parsed.ok) out.push({ item, ok: true, value: { v: 1, ...header, ...parsed.value } });
    else {
      const standalone = raw && typeof raw === 'object' ? { v: 1, ...header, ...raw } : raw;
      out.push({ item, ok: false, error: parsed.error, payload: JSON.stringify(standalone) });
    }
  });
  return out;
}
