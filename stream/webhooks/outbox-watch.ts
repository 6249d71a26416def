// Keeps the webhook outbox in check from the delivery worker's fan-out loop (the fan-out deletes
// each entry once its deliveries are enqueued; common/webhooks/outbox.ts): when the backlog of events without deliveries passes WEBHOOK_OUTBOX_WARN_BACKLOG, says so at
// warn level (once a minute while it lasts) and in the webhook_outbox_backlog gauge, instead of
// growing silently until Redis is full. /healthz shows the same figures to the operator.
import type { Logger } from '../../common/logger.ts';
import { webhookOutboxBacklog } from '../../common/metrics/registry.ts';
import type { WebhookOutbox } from '../../common/webhooks/outbox.ts';

const WARN_EVERY_MS = 60_000;

export interface OutboxWatchOptions {
  outbox: WebhookOutbox;
  warnAtBacklog: number;
  logger: Logger;
  now?: () => number;
}

export function createOutboxWatch(options: OutboxWatchOptions) {
  const now = options.now ?? Date.now;
  let warnedAt = Number.NEGATIVE_INFINITY;

  return {
    /** One round: measure, warn if needed. Returns the figures. */
    async tick() {
      const stats = await options.outbox.stats();
      webhookOutboxBacklog.set(stats.backlog);
      if (stats.backlog >= options.warnAtBacklog && now() - warnedAt >= WARN_EVERY_MS) {
        warnedAt = now();
        options.logger.warn('webhook outbox backlog', {
          backlog: stats.backlog,
          unread: stats.unread,
          pending: stats.pending,
          warn_at: options.warnAtBacklog,
        });
      } else if (stats.backlog < options.warnAtBacklog && warnedAt !== Number.NEGATIVE_INFINITY) {
        warnedAt = Number.NEGATIVE_INFINITY;
        options.logger.info('webhook outbox backlog back under the threshold', { backlog: stats.backlog });
      }
      return stats;
    },
  };
}
