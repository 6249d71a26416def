// The batch record's completion (common/batches.ts markStored) against the real Redis: stored ids
// leave the pending set in groups of up to 1,000 per SREM, so a batch of a few thousand ids must
// complete exactly when its last id is marked, once, whatever the grouping.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchKeys, batchStore } from '../../common/batches.ts';
import { env, testRedis } from '../support/api.ts';
import { recordBatch } from '../support/batches.ts';

describe('marking stored listings of a batch (edge)', () => {
  it('completes a batch of 2,501 ids only when every one is marked, across the SREM groups', async () => {
    const redis = await testRedis();
    const batches = batchStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const batchId = randomUUID();
    const account = `acct_mark_${batchId.slice(0, 8)}`;
    const ids = Array.from({ length: 2_501 }, () => randomUUID());
    await recordBatch(redis, env.REDIS_KEY_PREFIX, {
      batch_id: batchId,
      account_id: account,
      is_test: true,
      total: ids.length,
      duplicates: 0,
      failed_indexes: [],
      created_ids: ids,
    });

    // All but the last, in one call spanning three groups (1,000 + 1,000 + 500).
    expect(await batches.markStored(account, batchId, ids.slice(0, -1))).toBe(false);
    const halfway = await batches.get(account, batchId);
    expect(halfway?.status).toBe('processing');
    expect(await redis.scard(batchKeys(env.REDIS_KEY_PREFIX, account, batchId).pending)).toBe(1);

    expect(await batches.markStored(account, batchId, ids.slice(-1))).toBe(true);
    expect((await batches.get(account, batchId))?.status).toBe('completed');
    // Marked again (a replay): completed once, not again.
    expect(await batches.markStored(account, batchId, ids)).toBe(false);
  });
});
