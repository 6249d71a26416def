// Listing lifecycle (docs/lifecycle.md): the statuses a listing goes through, the rules that tie
// them to market spells, and the messages on rls.listing-status.v1 that carry every change. The
// stream applies them (stream/lifecycle/); the ingest API and the expiry/snapshot jobs publish them.
import { z } from 'zod';
import { currencies } from './listing.ts';
import { text } from './text.ts';

/** RESO StandardStatus, in our words: Active, ActiveUnderContract, Closed, Withdrawn, Expired. */
export const listingStatuses = ['active', 'under_contract', 'rented', 'withdrawn', 'expired'] as const;
export type ListingStatus = (typeof listingStatuses)[number];
/** What a client may set; `expired` is only ever set by the expiry job. */
export const settableStatuses = ['active', 'under_contract', 'rented', 'withdrawn'] as const;
export const statusSources = ['api', 'snapshot', 'expiry', 'resend'] as const;
export type StatusSource = (typeof statusSources)[number];

/** On the market: shown to renters and counted as stock. The other statuses are exits. */
export function isOnMarket(status: ListingStatus): boolean {
  return status === 'active' || status === 'under_contract';
}

export const DAY_MS = 86_400_000;
/** A listing back on the market within this long after it left continues its spell (RESO CDOM). */
export const RETURN_WINDOW_MS = 30 * DAY_MS;
/** A listing on the market that was neither re-sent nor changed for this long expires. */
export const EXPIRY_AFTER_MS = 60 * DAY_MS;
/** A snapshot that would withdraw more than this share of the account's stock is held. */
export const SNAPSHOT_GUARD_SHARE = 0.3;

/** Whole days between two instants (floor): days on market. */
export function wholeDays(fromMs: number, toMs: number): number {
  return Math.max(0, Math.floor((toMs - fromMs) / DAY_MS));
}

const isoDateTime = text().check(z.iso.datetime({ offset: true }));

/** One status change in a message (already validated by its producer; the stream checks again). */
export const statusItemSchema = z.strictObject({
  listing_id: z.uuid(),
  status: z.enum(listingStatuses),
  at: isoDateTime,
  rent_agreed: z.number().positive().max(1e12).optional(),
  currency: z.enum(currencies).optional(),
  /**
   * Snapshot withdrawals and expiries: apply only if the listing is still on the market and was not
   * stored, re-sent or changed after this instant (the job's view may be stale by the time the
   * stream applies it).
   */
  unless_updated_after: isoDateTime.optional(),
});
export type StatusItem = z.infer<typeof statusItemSchema>;

/** A re-sent listing (bulk create returned it again): restarts its expiry clock, returns it. */
export const seenItemSchema = z.strictObject({ listing_id: z.uuid() });
export type SeenItem = z.infer<typeof seenItemSchema>;

/**
 * rls.listing-status.v1, key = account_id (one partition per account keeps its changes in order).
 * Items are validated one by one, so a bad item does not sink its siblings.
 */
export const statusMessageSchema = z.object({
  v: z.literal(1),
  kind: z.enum(['status', 'seen']),
  source: z.enum(statusSources),
  account_id: z.string().min(1).max(64),
  is_test: z.boolean(),
  received_at: isoDateTime,
  snapshot_id: z.string().max(128).optional(),
  items: z.array(z.unknown()).min(1),
});
export type StatusMessage = Omit<z.infer<typeof statusMessageSchema>, 'items'>;
