// A store as the previous release left it, written by that release's own modules
// (redis-upgrade-previous.ts): API keys of every tier, admin keys, keys with usage and at their
// rate limits, webhooks with deliveries queued and events not yet fanned out, batches pending and
// complete, idempotency records, a snapshot and listing owners. Returns what each holds, read back
// by that release, for the new release to find the same.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PreviousKey, PreviousModules, PreviousWebhook } from './redis-upgrade-previous.ts';

export const USED_KEY_REQUESTS = 5;
export const FREE_KEY_LIMIT = 60;

const id = (what: string) => `up_${what}_${randomBytes(4).toString('hex')}`;

export async function fillPreviousStore(
  redis: Redis,
  prefix: string,
  previous: PreviousModules,
  hookUrl: string,
) {
  const keyStore = previous.createKeyStore(redis, prefix);
  const account = { hooks: id('hooks'), hooks2: id('hooks2'), idem: id('idem'), snap: id('snap') };
  type NewKey = Parameters<typeof keyStore.create>[0];
  /** A key of a new account (the store makes its id), then more keys of that account. */
  async function keysOfNewAccount(first: NewKey, ...more: NewKey[]) {
    const made = [await keyStore.create(first)];
    for (const input of more) made.push(await keyStore.create({ ...input, accountId: made[0]!.account_id }));
    return made;
  }

  // Keys of every tier and mode, an enterprise key with its own limit, two admin keys of an account.
  const tierKeys = [
    ...(await keysOfNewAccount({ mode: 'live', tier: 'free' }, { mode: 'test', tier: 'pro' })),
    ...(await keysOfNewAccount({ mode: 'live', tier: 'business' })),
    ...(await keysOfNewAccount({ mode: 'live', tier: 'enterprise', rateLimit: 600 })),
  ];
  const admins = await keysOfNewAccount(
    { mode: 'live', tier: 'business', role: 'admin' },
    { mode: 'test', tier: 'business', role: 'admin' },
  );
  // A key with some usage; an account whose first key used its whole minute and whose second used
  // the rest of the account's (free: 60 per key, 120 per account), and a third key of it, unused.
  const [used] = await keysOfNewAccount({ mode: 'live', tier: 'free' });
  for (let i = 0; i < USED_KEY_REQUESTS; i++) await keyStore.authorize(used!.key, 'bulk');
  const free = { mode: 'live', tier: 'free' } as const;
  const [atKeyLimit, atAccountLimit, unusedOfLimited] = await keysOfNewAccount(free, free, free);
  for (const key of [atKeyLimit!, atAccountLimit!])
    for (let i = 0; i < FREE_KEY_LIMIT; i++) await keyStore.authorize(key.key, 'bulk');

  // Webhooks: two of one account, one of another that failed once.
  const webhookStore = previous.webhookStore(redis, prefix);
  const newWebhook = async (accountId: string, n: number) =>
    (await webhookStore.create({
      account_id: accountId,
      mode: 'live',
      url: `${hookUrl}/${n}`,
      events: ['listings.batch.completed'],
      description: `hook ${n}`,
    }))!;
  const hooks = [await newWebhook(account.hooks, 1), await newWebhook(account.hooks, 2)];
  const failing = await newWebhook(account.hooks2, 3);
  await webhookStore.recordFailure(failing.id, new Date().toISOString(), 'HTTP 500');
  const webhooks: PreviousWebhook[] = [];
  for (const hook of [...hooks, failing]) webhooks.push((await webhookStore.get(hook.id))!);

  // Batches as a bulk request records them; the stream marks their listings stored.
  const batches = previous.batchStore(redis, prefix);
  const admission = previous.admissionStore(redis, prefix);
  const listingIds = (n: number) => Array.from({ length: n }, () => randomUUID());
  async function batch(accountId: string, ids: string[], stored: string[]) {
    const batchId = randomUUID();
    const header = {
      batch_id: batchId,
      account_id: accountId,
      is_test: false,
      total: ids.length,
      duplicates: 0,
      failed_indexes: [],
    };
    const owner = { accountId, mode: 'live' as const };
    const admitted = await admission.admit({
      batch: header,
      owner,
      candidates: ids,
      limit: 1e9,
      at: new Date(),
    });
    if (admitted.kind !== 'admitted') throw new Error(`batch ${batchId} not admitted: ${admitted.kind}`);
    await admission.confirm(ids, batchId);
    if (stored.length) await batches.markStored(batchId, stored);
    return batchId;
  }
  const pendingIds = listingIds(3);
  const pendingBatch = await batch(account.hooks2, pendingIds, pendingIds.slice(0, 1));
  // A running stream worker of that release had its fan-out group on the outbox: the first
  // completed batch is fanned out (its deliveries wait in the queue), the second is not yet.
  const fanout = previous.createFanout({
    redis,
    prefix,
    outboxKey: batches.outboxKey,
    consumer: 'previous-release',
    webhooks: webhookStore,
    batches,
    queue: previous.deliveryQueue(redis, prefix),
  });
  await fanout.ensureGroup();
  const queuedIds = listingIds(2);
  const queuedBatch = await batch(account.hooks, queuedIds, queuedIds);
  while ((await fanout.poll()) >= 0);
  const unreadIds = listingIds(1);
  const unreadBatch = await batch(account.hooks, unreadIds, unreadIds);
  const batchRecords = new Map<string, Record<string, unknown>>();
  for (const batchId of [pendingBatch, queuedBatch, unreadBatch])
    batchRecords.set(batchId, (await batches.get(batchId))!);

  // Idempotency records: a kept answer and a kept error.
  const idempotency = previous.idempotencyStore(redis, prefix);
  const scope = { endpoint: 'bulk', accountId: account.idem, mode: 'live' as const };
  const budget = { owner: { accountId: account.idem, mode: 'live' as const }, limit: 1e9 };
  const retries = [
    { key: `retry-${randomUUID()}`, body: '{"n":1}', response: { status: 202, body: '{"batch_id":"b1"}' } },
    {
      key: `retry-${randomUUID()}`,
      body: '{"n":2}',
      response: { status: 422, error: { code: 'validation_failed', requestId: 'req_1', digest: 'd1' } },
    },
  ];
  for (const retry of retries) {
    const claim = await idempotency.claim(scope, retry.key, Buffer.from(retry.body));
    await idempotency.complete(claim.recordKey!, retry.response, budget);
  }

  // A snapshot half received; listing owners and the marker that they were built.
  const snapshots = previous.snapshotStore(redis, prefix);
  const snapshotId = `snap-${randomUUID()}`;
  const now = new Date().toISOString();
  await snapshots.addPart(account.snap, false, snapshotId, {
    part: 0,
    parts: 2,
    externalIds: ['e1', 'e2'],
    now,
    maxIds: 1000,
  });
  const snapshot = (await snapshots.read(account.snap, false, snapshotId))!;
  const owned = listingIds(3).map((listingId, i) => ({ listingId, position: `0:${100 + i}:0` }));
  await previous.listingOwners(redis, prefix).claim(owned);
  await redis.set(previous.ownersRebuildKeys(prefix).marker, now);

  return {
    keys: {
      tierKeys,
      admins,
      used: used!,
      atKeyLimit: atKeyLimit!,
      atAccountLimit: atAccountLimit!,
      unusedOfLimited: unusedOfLimited!,
    },
    allKeys: [...tierKeys, ...admins, used!, atKeyLimit!, atAccountLimit!, unusedOfLimited!] as PreviousKey[],
    account,
    webhooks,
    batches: { pending: pendingBatch, queued: queuedBatch, unread: unreadBatch, records: batchRecords },
    idempotency: { scope, retries },
    snapshot: { account: account.snap, id: snapshotId, record: snapshot },
    owners: owned,
  };
}

export type PreviousStore = Awaited<ReturnType<typeof fillPreviousStore>>;
