// Event payloads (docs/webhooks.md, "Events"): {type, timestamp, data}. Built once, at fan-out,
// and stored with the delivery, so every retry sends the same bytes.
import type { Redis } from 'ioredis';
import type { BatchRecord } from '../../common/batches.ts';
import type { PhotoSummary } from '../../common/photos/batch-summary.ts';

export interface ImageSummary {
  checked: number;
  ok: number;
  failed: number;
  pending: number;
}

export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The image-check summary of a batch as known now (image checks may still be running). */
export async function imageSummary(redis: Redis, prefix: string, batchId: string): Promise<ImageSummary> {
  const f = await redis.hgetall(`${prefix}batch:${batchId}:images`);
  const n = (value: string | undefined) => Math.max(0, Number(value ?? 0) || 0);
  return { checked: n(f.checked), ok: n(f.ok), failed: n(f.failed), pending: n(f.pending) };
}

export function batchCompletedEvent(
  batch: BatchRecord,
  images: ImageSummary,
  fallbackAt: string,
  photos: PhotoSummary | null = null,
): WebhookEvent {
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
