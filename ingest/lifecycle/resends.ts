// Re-sent listings → the status stream (docs/lifecycle.md, "Re-sends"): every listing a bulk request
// answered as a duplicate (it was pushed before) is reported as seen, at most once a day per listing
// (resend-marks.ts). The stream restarts its expiry clock, or returns it to the market if it had
// left. New listings are not reported: storing them starts their clock (and a listing published
// again after the duplicate window, which bulk create cannot recognise, is reported by the stream
// when it skips it as already stored). Best effort: the listings themselves are already accepted, so
// a failure here is logged and the marks are forgotten (the next push reports them again) instead
// of failing the request.
import type { StatusMessage } from '../../common/domain/lifecycle.ts';
import { resendMarks, type ResendMarks } from '../../common/lifecycle/resend-marks.ts';
import type { Logger } from '../../common/logger.ts';
import type { IngestContext } from '../context.ts';
import type { BulkCreateResponse } from '../listings/schemas.ts';

export interface ResendDeps {
  marks: ResendMarks;
  publish(message: StatusMessage & { items: { listing_id: string }[] }): Promise<void>;
  logger: Logger;
}

export async function reportResends(
  deps: ResendDeps,
  head: { account_id: string; is_test: boolean; received_at: string },
  listingIds: string[],
): Promise<void> {
  if (!listingIds.length) return;
  let fresh: string[] = [];
  try {
    fresh = await deps.marks.mark(head.account_id, listingIds);
    if (!fresh.length) return;
    await deps.publish({
      v: 1,
      kind: 'seen',
      source: 'resend',
      ...head,
      items: fresh.map((listing_id) => ({ listing_id })),
    });
  } catch (error) {
    deps.logger.warn('re-sent listings not reported to the status stream', {
      listings: listingIds.length,
      error: String(error),
    });
    await deps.marks.forget(head.account_id, fresh).catch((forgetError: unknown) =>
      // The marks then hide these re-sends for their TTL: say so, the data is not lost (Kafka has it).
      deps.logger.warn('re-send marks not forgotten', { listings: fresh.length, error: String(forgetError) }),
    );
  }
}

/** The reporter bulk create calls after a successful request (ingest/listings/routes.ts). */
export function resendReporter(ctx: IngestContext) {
  const { platform } = ctx;
  const topic = platform.topic('rls.listing-status.v1');
  const deps: ResendDeps = {
    marks: resendMarks(platform.redis, platform.env.REDIS_KEY_PREFIX),
    async publish(message) {
      await ctx.statusPublisher.publish(topic, [{ key: message.account_id, value: JSON.stringify(message) }]);
    },
    logger: platform.logger,
  };
  return (accountId: string, response: BulkCreateResponse) =>
    reportResends(
      deps,
      { account_id: accountId, is_test: response.summary.test_mode, received_at: new Date().toISOString() },
      response.results.flatMap((r) => (r.status === 'duplicate' && r.listing_id ? [r.listing_id] : [])),
    );
}
