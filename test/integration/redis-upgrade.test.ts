// Upgrading a store written by the previous release: that release's own modules (checked out with
// git worktree, redis-upgrade-previous.ts) write API keys, admin keys, usage and rate windows,
// webhooks with queued deliveries and unread events, batches, idempotency records, a snapshot and
// listing owners under a prefix of the test's own (redis-upgrade-fill.ts); `npm run redis:migrate`'s
// runner moves them; then this release's modules find every one of them as it was, and no key of
// the previous layout is left for any family with previous names (a second run moves nothing).
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import { createKeyStore, LastAdminKeyError } from '../../common/auth/key-store.ts';
import { batchStore } from '../../common/batches.ts';
import { scanAll } from '../../common/clients/redis.ts';
import { keyFamilies } from '../../common/redis-keys/registry.ts';
import { readUsage } from '../../common/usage/counters.ts';
import { webhookStore } from '../../common/webhooks/store.ts';
import { idempotencyStore } from '../../ingest/idempotency.ts';
import { snapshotStore } from '../../ingest/lifecycle/snapshot-store.ts';
import { previousPrefix } from '../../infra/redis-migrate/env.ts';
import { migrateKeys, type MigrationTarget } from '../../infra/redis-migrate/migrate.ts';
import { literalGlob } from '../../infra/redis-migrate/old-keys.ts';
import { migrationReport } from '../../infra/redis-migrate/report.ts';
import { listingOwners, ownersRebuildKeys } from '../../stream/listings/owners.ts';
import { env, testRedis } from '../support/api.ts';
import { deliverWebhooks } from '../support/redis-upgrade-deliver.ts';
import { FREE_KEY_LIMIT, fillPreviousStore, USED_KEY_REQUESTS } from '../support/redis-upgrade-fill.ts';
import { checkOutPreviousRelease, PREVIOUS_RELEASE } from '../support/redis-upgrade-previous.ts';
import { type Receiver, startReceiver } from '../support/webhooks-receiver.ts';

let previous: Awaited<ReturnType<typeof checkOutPreviousRelease>> | undefined;
let receiver: Receiver | undefined;

beforeAll(async () => {
  previous = await checkOutPreviousRelease();
  receiver = await startReceiver('/hook');
}, 120_000);

afterAll(async () => {
  previous?.remove();
  await receiver?.close();
});

describe(`Redis upgrade from the previous release (${PREVIOUS_RELEASE})`, () => {
  it('happy: a store the previous release wrote, migrated, serves every key, webhook, batch, idempotent retry, snapshot and owner', async () => {
    const redis = await testRedis();
    const cluster = env.REDIS_CLUSTER_NODES.length > 0;
    const ownPrefix = `test:upgrade:${randomBytes(4).toString('hex')}:`;
    // The prefix this release's services use, and the one the previous release wrote under.
    const prefix = ownPrefix;
    const oldPrefix = previousPrefix(ownPrefix, cluster);
    const store = await fillPreviousStore(redis, oldPrefix, previous!.modules, receiver!.url);
    const target: MigrationTarget = {
      redis,
      prefix,
      previousPrefix: oldPrefix,
      parts: env.REDIS_GLOBAL_PARTS,
      cluster,
    };
    try {
      const counts = await migrateKeys(target, keyFamilies);
      console.log(
        ['redis:migrate of the previous release store:', ...migrationReport(counts, false)].join('\n  '),
      );

      // Rate windows first: they last a minute from the fill.
      const keyStore = createKeyStore(redis, prefix);
      const { keys } = store;
      const atKeyLimit = await keyStore.authorize(keys.atKeyLimit.key, 'bulk');
      expect(atKeyLimit).toMatchObject({
        outcome: 'rate_limited',
        rateLimit: { limit: FREE_KEY_LIMIT, remaining: 0 },
      });
      const atAccountLimit = await keyStore.authorize(keys.unusedOfLimited.key, 'bulk');
      expect(atAccountLimit).toMatchObject({
        outcome: 'rate_limited',
        rateLimit: { scope: 'account', remaining: 0 },
      });
      // Usage counted by the previous release, then this request on top of it.
      const usage = await readUsage(redis, prefix, hashApiKey(keys.used.key));
      expect(usage.today.requests.total).toBe(USED_KEY_REQUESTS);
      expect(usage.this_month.requests.by_endpoint).toEqual({ bulk: USED_KEY_REQUESTS });
      const used = await keyStore.authorize(keys.used.key, 'bulk');
      expect(used).toMatchObject({
        outcome: 'allowed',
        rateLimit: { scope: 'key', limit: FREE_KEY_LIMIT, remaining: FREE_KEY_LIMIT - USED_KEY_REQUESTS - 1 },
      });

      // Every key authenticates with its account, mode, tier, role and limit, by id too, and is listed.
      const wanted = (k: (typeof store.allKeys)[number]) => ({
        id: k.id,
        account_id: k.account_id,
        mode: k.mode,
        tier: k.tier,
        role: k.role,
        rate_limit: k.rate_limit,
      });
      const limited = new Set([keys.atKeyLimit.id, keys.atAccountLimit.id, keys.unusedOfLimited.id]);
      for (const key of store.allKeys) {
        const auth = await keyStore.authorize(key.key, 'bulk');
        expect(auth.outcome, key.id).toBe(limited.has(key.id) ? 'rate_limited' : 'allowed');
        expect('record' in auth && auth.record, key.id).toMatchObject(wanted(key));
        expect(await keyStore.findById(key.id), key.id).toMatchObject(wanted(key));
        expect((await keyStore.listAccount(key.account_id)).map((r) => r.id)).toContain(key.id);
      }
      const listed = new Set((await keyStore.list()).map((r) => r.id));
      expect(store.allKeys.filter((k) => !listed.has(k.id)).map((k) => k.id)).toEqual([]);
      // The account's admin keys: one may go while the other stays, the last one may not.
      const keepAdmin = { keepAdminOfModes: ['live', 'test'] as const };
      expect(await keyStore.revoke(keys.admins[0]!.id, keepAdmin)).toMatchObject({ status: 'revoked' });
      await expect(keyStore.revoke(keys.admins[1]!.id, keepAdmin)).rejects.toThrow(LastAdminKeyError);

      // Webhooks and batches read as the previous release read them.
      const webhooks = webhookStore(redis, prefix);
      for (const hook of store.webhooks) {
        expect(await webhooks.get(hook.account_id, hook.id)).toEqual(hook);
        expect((await webhooks.list(hook.account_id, 'live')).map((w) => w.id)).toContain(hook.id);
      }
      const batches = batchStore(redis, prefix, env.REDIS_GLOBAL_PARTS);
      for (const [batchId, record] of store.batches.records)
        expect(await batches.get(String(record.account_id), batchId)).toEqual(record);
      expect(store.batches.records.get(store.batches.pending)).toMatchObject({
        status: 'processing',
        stored: 1,
      });

      // Every idempotent retry replays the answer kept for it.
      const idempotency = idempotencyStore(redis, prefix);
      for (const retry of store.idempotency.retries) {
        const replay = await idempotency.claim(store.idempotency.scope, retry.key, Buffer.from(retry.body));
        expect(replay).toEqual({ kind: 'replay', response: retry.response });
      }

      // The snapshot and the listing owners (and the marker that they are built) are found.
      const snapshots = snapshotStore(redis, prefix);
      const { snapshot } = store;
      expect(await snapshots.read(snapshot.account, false, snapshot.id)).toEqual(snapshot.record);
      expect(await snapshots.declared(snapshot.account, false, snapshot.id, ['e1', 'e2', 'e3'])).toEqual([
        true,
        true,
        false,
      ]);
      const rivals = store.owners.map((o) => ({ listingId: o.listingId, position: '9:999:0' }));
      expect(await listingOwners(redis, prefix).claim(rivals)).toEqual(store.owners.map((o) => o.position));
      expect(await redis.exists(ownersRebuildKeys(prefix).marker)).toBe(1);

      // The deliveries the previous release queued and the event it had not fanned out yet reach
      // the receiver, signed with each webhook's secret.
      const hooks = store.webhooks.filter((w) => w.account_id === store.account.hooks);
      const expected = hooks.length * 2;
      const outcomes = await deliverWebhooks(redis, prefix, receiver!, expected);
      expect(outcomes.filter((o) => o === 'succeeded')).toHaveLength(expected);
      // Which webhook a request was for: the one whose secret its signature verifies with.
      const delivered = receiver!.received.map((request) => {
        const signedBy = hooks.flatMap((hook) => {
          try {
            const event = new Webhook(hook.secret).verify(request.body, request.headers as never);
            return [`${hook.id} ${(event as { data: { batch_id: string } }).data.batch_id}`];
          } catch {
            return [];
          }
        });
        expect(signedBy).toHaveLength(1);
        return signedBy[0];
      });
      expect(delivered.sort()).toEqual(
        hooks.flatMap((h) => [store.batches.queued, store.batches.unread].map((b) => `${h.id} ${b}`)).sort(),
      );

      // Nothing of the previous layout is left that a family would move: a second run moves nothing.
      const again = await migrateKeys(target, keyFamilies, { dryRun: true });
      expect(again.filter((c) => c.moved > 0)).toEqual([]);
      const left = await Promise.all(
        keyFamilies
          .filter((f) => f.legacy)
          .map(async (f) => [
            f.name,
            (await scanAll(redis, literalGlob(oldPrefix) + f.legacy!.pattern)).length,
          ]),
      );
      console.log(`keys of the previous layout left per family: ${JSON.stringify(Object.fromEntries(left))}`);
      expect(left.filter(([, n]) => n !== 0)).toEqual([]);
    } finally {
      const keys = [
        ...new Set([
          ...(await scanAll(redis, `${literalGlob(prefix)}*`)),
          ...(await scanAll(redis, `${literalGlob(oldPrefix)}*`)),
        ]),
      ];
      for (const key of keys) await redis.unlink(key);
    }
  }, 180_000);
});
