// The stores' scripts and transactions on a real Redis Cluster (REDIS_CLUSTER_NODES), under the
// services' own (untagged) prefix. A Lua script, MULTI or multi-key command whose keys are not in
// one slot fails there with CROSSSLOT; each key carries its account's, API key's, bucket's or part's
// hash tag (common/redis-keys/tags.ts), so every one of them runs. A call given keys of two
// accounts shows what the cluster would answer, and that the scripts refuse it before sending.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import type { KeyActor } from '../../common/auth/key-audit.ts';
import { createKeyStore } from '../../common/auth/key-store.ts';
import { createAnswerCache } from '../../analytics-api/cache.ts';
import { batchStore } from '../../common/batches.ts';
import { createRedis, redisReady, scanAll } from '../../common/clients/redis.ts';
import { redisScript } from '../../common/clients/redis-script.ts';
import { accountSpace } from '../../common/redis-keys/tags.ts';
import { CrossSlotError } from '../../common/redis-keys/slot.ts';
import { resendMarks } from '../../common/lifecycle/resend-marks.ts';
import { createLogger } from '../../common/logger.ts';
import { readUsage, recordListingOutcomes } from '../../common/usage/counters.ts';
import { workerRegistry } from '../../common/worker-registry.ts';
import { env, eventually } from '../support/api.ts';
import { recordBatch } from '../support/batches.ts';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { idempotencyStore } from '../../ingest/idempotency.ts';
import { quotaStore } from '../../ingest/quota.ts';

const nodes = (process.env.REDIS_CLUSTER_NODES ?? '').split(',').filter(Boolean);
const redis = createRedis({ url: 'redis://127.0.0.1', clusterNodes: nodes }, { name: 'cluster-key-tests' });
const run = randomBytes(4).toString('hex');
const prefix = `rls:test-${run}:`;

afterAll(async () => {
  for (const key of await scanAll(redis, `${prefix}*`)) await redis.del(key);
  redis.disconnect();
});

/** Exercises every multi-key operation of these stores once; resolves when all of them ran. */
async function exercise(prefix: string): Promise<void> {
  const batchA = randomUUID();
  const ids = Array.from({ length: 20 }, () => randomUUID());

  const batches = batchStore(redis, prefix, env.REDIS_GLOBAL_PARTS);
  await recordBatch(redis, prefix, {
    batch_id: batchA,
    account_id: 'acct_cluster',
    is_test: false,
    total: 2,
    duplicates: 0,
    failed_indexes: [],
    created_ids: ids.slice(0, 2),
  });
  expect(await batches.markStored('acct_cluster', batchA, ids.slice(0, 2))).toBe(true);

  // The analytics cache reads an entry (the account's own, or the market's in a part), the
  // account's last completion (noted after the batch script above) and Redis's clock; a hit shows
  // those reads ran.
  const cache = createAnswerCache({
    redis,
    keyPrefix: prefix,
    parts: 16,
    ttlSeconds: 60,
    logger: createLogger('warn'),
  });
  for (const perAccount of [true, false]) {
    const question = { key: `cluster-${run}-${perAccount}`, perAccount };
    expect((await cache.getOrCompute(question, 'acct_cluster', async () => 1)).cache).toBe('miss');
    await eventually(async () =>
      (await cache.getOrCompute(question, 'acct_cluster', async () => 2)).cache === 'hit' ? true : undefined,
    );
  }

  const keys = createKeyStore(redis, prefix);
  const actor: KeyActor = { source: 'cli', operator: 'cluster-test' };
  const admin = await keys.create({ mode: 'live', tier: 'pro', role: 'admin' }, actor);
  const other = await keys.create(
    { mode: 'live', tier: 'pro', role: 'admin', accountId: admin.account_id },
    actor,
  );
  expect((await keys.authorize(admin.key, 'test')).outcome).toBe('allowed');
  const rolled = await keys.roll(other.id, { expiresAt: new Date(Date.now() + 60_000), actor });
  expect(rolled?.created.id).toBeTruthy();
  expect((await keys.revoke(other.id, { actor, keepAdminOfModes: ['live'] }))?.status).toBe('revoked');
  expect((await keys.listAccount(admin.account_id)).length).toBe(3);

  const quota = quotaStore(redis, prefix);
  const owner = { accountId: admin.account_id, mode: 'live' } as const;
  await quota.reserve(owner, 'listings', 5, 100, new Date());
  await quota.refund(owner, 'listings', 5, new Date());

  // A bulk request's claims and quota in one script, its batch record in another; given back likewise.
  // The account of batch A, which holds ids[0] (seen ids are the account's own).
  const admission = admissionStore(redis, prefix, env.REDIS_GLOBAL_PARTS);
  const bulk = {
    batch: {
      batch_id: randomUUID(),
      account_id: 'acct_cluster',
      is_test: false,
      total: 3,
      duplicates: 0,
      failed_indexes: [],
    },
    owner: { accountId: 'acct_cluster', mode: 'live' } as const,
    candidates: [randomUUID(), ids[0]!, randomUUID()],
    limit: 100,
    at: new Date(),
  };
  const admitted = await admission.admit(bulk);
  expect(admitted).toMatchObject({ kind: 'admitted', created: [bulk.candidates[0], bulk.candidates[2]] });
  await admission.abandon(bulk, [bulk.candidates[0]!, bulk.candidates[2]!]);

  // A bulk request's usage counters: the key's three hashes in one script, its dirty mark beside it.
  const adminHash = hashApiKey(admin.key);
  await recordListingOutcomes(redis, prefix, 16, adminHash, { created: 2, duplicates: 1, failed: 0 });
  expect((await readUsage(redis, prefix, adminHash)).today.listings).toEqual({
    created: 2,
    duplicates: 1,
    failed: 0,
  });

  const idempotency = idempotencyStore(redis, prefix);
  const scope = { endpoint: 'bulk', accountId: admin.account_id, mode: 'live' } as const;
  const claim = await idempotency.claim(scope, `cluster-${run}`, Buffer.from('{}'));
  expect(claim.kind).toBe('claimed');
  if (claim.kind === 'claimed') {
    const budget = { owner, limit: 1_000_000 };
    expect(await idempotency.complete(claim.recordKey, { status: 201, body: '{}' }, budget)).toBe(true);
  }

  const workers = workerRegistry(redis, prefix);
  await workers.beat({ worker_id: 'w1', role: 'stream', pid: 1, started_at: '', consumers: {} });
  expect((await workers.live()).map((w) => w.worker_id)).toEqual(['w1']);
  await workers.remove('w1');

  const marks = resendMarks(redis, prefix);
  expect((await marks.mark('acct_cluster', ids)).length).toBe(ids.length);
  await marks.forget('acct_cluster', ids);
}

describe('Redis Cluster: every script and transaction of the stores runs in one slot', () => {
  it("happy: under the services' prefix, all of them run", async () => {
    expect(nodes.length, 'REDIS_CLUSTER_NODES must list the cluster nodes').toBeGreaterThan(0);
    await redisReady(redis);
    await exercise(prefix);
  });

  it('error: keys of two accounts in one call: the cluster answers CROSSSLOT, a script refuses before sending', async () => {
    const [a, b] = [`${accountSpace(prefix, 'acct_a')}x`, `${accountSpace(prefix, 'acct_b')}x`];
    await expect(redis.eval("return redis.call('MGET', KEYS[1], KEYS[2])", 2, a, b)).rejects.toThrow(
      /CROSSSLOT|non local key/i,
    );
    const script = redisScript("return redis.call('MGET', KEYS[1], KEYS[2])");
    await expect(script.run(redis, 2, a, b)).rejects.toThrow(CrossSlotError);
  });
});
