// Records a batch the way a bulk request does (ingest/listings/admission.ts: the claims of its new
// listings and their quota in one script, the batch record in another, then the confirm after the publish), for
// tests that need a batch without publishing its listings. `created_ids` must be ids no other batch
// claimed (random ones), so each is created by this batch.
import type { Redis } from 'ioredis';
import type { NewBatch } from '../../common/batches.ts';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { env } from './api.ts';

export async function recordBatch(
  redis: Redis,
  prefix: string,
  batch: NewBatch,
  parts = env.REDIS_GLOBAL_PARTS,
): Promise<void> {
  const { created_ids: candidates, ...header } = batch;
  const admission = admissionStore(redis, prefix, parts);
  const admitted = await admission.admit({
    batch: header,
    owner: { accountId: batch.account_id, mode: batch.is_test ? 'test' : 'live' },
    candidates,
    limit: Number.MAX_SAFE_INTEGER,
    at: new Date(),
  });
  if (admitted.kind !== 'admitted' || admitted.created.length !== candidates.length) {
    throw new Error(`batch ${batch.batch_id}: its listing ids were claimed already`);
  }
  await admission.confirm(batch.account_id, candidates, batch.batch_id);
}
