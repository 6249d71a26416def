// listings.batch.completed carries the photo summary of the batch as known when it is built
// (docs/webhooks.md, "Events"); null before the checker analysed any of its photos.
import { describe, expect, it } from 'vitest';
import type { PhotoSummary } from '../../common/photos/batch-summary.ts';
import { batchCompletedEvent } from '../../stream/webhooks/events.ts';

const batch = {
  batch_id: '5d2f4a52-5f37-4b1a-9a43-0c6f0b8e2a11',
  account_id: 'acct_1',
  key_id: 'key_1',
  is_test: false,
  status: 'completed' as const,
  total: 1,
  created: 1,
  duplicates: 0,
  failed: 0,
  failed_indexes: [],
  created_at: '2026-11-23T10:00:00.000Z',
  completed_at: '2026-11-23T10:00:01.000Z',
  stored: 1,
};
const images = { checked: 3, ok: 3, failed: 0, pending: 0 };

describe('batch completed event: photos', () => {
  it('happy: summarises tags and reuse', () => {
    const photos: PhotoSummary = {
      analysed: 3,
      decoded: 3,
      undecodable: 0,
      tagged: 2,
      abstained: 1,
      reused: 1,
      tags: { Bathroom: 1, Kitchen: 1 },
    };
    expect(batchCompletedEvent(batch, images, 'now', photos).data.photos).toEqual(photos);
  });

  it('is null before any photo was analysed', () => {
    expect(batchCompletedEvent(batch, images, 'now').data.photos).toBeNull();
  });
});
