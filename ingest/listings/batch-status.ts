// GET /listings/batches/{id}: the batch record of common/batches.ts, for its owning account only
// (read under the calling key's account, so any other account gets the same 404 as an unknown
// id, and ids cannot be probed), and there for
// the keys of the batch's mode (a test key never reads live batches, nor a live key test ones)
// and the key that created it (a live key's `test_mode` batch), plus the image
// check counters that the image process (stream/images) keeps (common/photos/batch-image-checks.ts)
// and the photo summary (common/photos/batch-summary.ts).
import type { Redis } from 'ioredis';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import type { BatchRecord, BatchStore } from '../../common/batches.ts';
import { AppError } from '../../common/errors.ts';
import { isUuid } from '../../common/ids.ts';
import { readImageChecks } from '../../common/photos/batch-image-checks.ts';
import { readPhotoSummary } from '../../common/photos/batch-summary.ts';
import type { BatchStatus } from './schemas.ts';

export async function batchStatus(
  deps: { batches: BatchStore; redis: Redis; prefix: string },
  auth: ApiKeyRecord,
  batchId: string,
): Promise<BatchStatus> {
  const notFound = new AppError('not_found', `No batch ${batchId} for this account`);
  if (!isUuid(batchId)) throw notFound;
  const id = batchId.toLowerCase();
  const [batch, images, photos] = await Promise.all([
    deps.batches.get(auth.account_id, id),
    readImageChecks(deps.redis, deps.prefix, auth.account_id, id),
    readPhotoSummary(deps.redis, deps.prefix, auth.account_id, id),
  ]);
  if (!batch || !visibleTo(batch, auth)) throw notFound;
  return {
    batch_id: batch.batch_id,
    status: batch.status,
    test_mode: batch.is_test,
    total: batch.total,
    created: batch.created,
    duplicates: batch.duplicates,
    failed: batch.failed,
    stored: batch.stored,
    pending: batch.created - batch.stored,
    failed_indexes: batch.failed_indexes,
    created_at: batch.created_at,
    ...(batch.completed_at ? { completed_at: batch.completed_at } : {}),
    images,
    photos,
  };
}

function visibleTo(batch: BatchRecord, auth: ApiKeyRecord): boolean {
  if (batch.account_id !== auth.account_id) return false;
  return batch.is_test === (auth.mode === 'test') || batch.key_id === auth.id;
}
