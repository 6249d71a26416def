// Listings the listings consumer skipped because they were stored before — published again after
// bulk create's duplicate window (30 days) had passed, so bulk create took them for new ones. For
// the listing lifecycle that is a re-send (docs/lifecycle.md, "Re-sends"): reported to the status
// stream as seen, per account and mode, so the listing's expiry clock restarts or it comes back to
// the market. Best effort: a failure only costs that report, and is logged.
import type { Producer } from 'kafkajs';
import type { StatusMessage } from '../../common/domain/lifecycle.ts';
import type { ListingMessage } from '../../common/domain/messages.ts';
import { errorFields, type Logger } from '../../common/logger.ts';

export async function reportRepushed(
  producer: Producer,
  topic: string,
  listings: ListingMessage[],
  logger: Logger,
): Promise<void> {
  const groups = new Map<string, ListingMessage[]>();
  for (const l of listings) {
    const key = `${l.account_id}\n${l.is_test}`;
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  const messages = [...groups.values()].map((group) => {
    const head = group[0]!;
    const message: StatusMessage & { items: { listing_id: string }[] } = {
      v: 1,
      kind: 'seen',
      source: 'resend',
      account_id: head.account_id,
      is_test: head.is_test,
      received_at: head.received_at,
      items: [...new Set(group.map((l) => l.listing_id))].map((listing_id) => ({ listing_id })),
    };
    return { key: head.account_id, value: JSON.stringify(message) };
  });
  try {
    await producer.send({ topic, messages });
  } catch (error) {
    logger.warn('re-pushed listings not reported to the status stream', {
      listings: listings.length,
      ...errorFields(error),
    });
  }
}
