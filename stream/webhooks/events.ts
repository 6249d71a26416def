// Event payloads (docs/webhooks.md, "Events"): {type, timestamp, data}. Built once, at fan-out,
// and stored with the delivery, so every retry sends the same bytes.
import type { BatchRecord } from '../../common/batches.ts';
import type { ImageChecks } from '../../common/photos/batch-image-checks.ts';
import type { PhotoSummary } from '../../common/photos/batch-summary.ts';

export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const noImageChecks: ImageChecks = { checked: 0, ok: 0, failed: 0, pending: 0 };

export function batchCompletedEvent(
  batch: BatchRecord,
  /** Null before the image process started on any listing of the batch (all counts 0). */
  imageChecks: ImageChecks | null,
  fallbackAt: string,
  photos: PhotoSummary | null = null,
): WebhookEvent {
  const images = imageChecks ?? noImageChecks;
  return {
    type: 'listings.batch.completed',
    timestamp: batch.completed_at ?? fallbackAt,
    data: {
      batch_id: batch.batch_id,
      status: 'completed',
      test_mode: batch.is_test,
      total: batch.total,
      created: batch.created,
      duplicates: batch.duplicates,
      failed: batch.failed,
      failed_indexes: batch.failed_indexes,
      created_at: batch.created_at,
      completed_at: batch.completed_at ?? fallbackAt,
      images: { ...images, complete: images.pending === 0 },
      // Decoded photos, their RESO ImageOf tags and reuse, as far as analysed when the event is built.
      photos,
    },
  };
}

export function testEvent(webhookId: string, at: string, eventId: string): WebhookEvent {
  return {
    type: 'webhook.test',
    timestamp: at,
    data: { webhook_id: webhookId, event_id: eventId, message: 'Test event sent on request' },
  };
}
