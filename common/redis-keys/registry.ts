// Every Redis key family the services write, in one list: its name, the module that owns it (it
// spells the name, in its builder, beside its reader and writer), the hash tag that places it on a
// Redis Cluster, how long a key lives and what bounds the family's growth. The key-family test
// (test/unit/redis-key-modules.test.ts) checks the code against it, and docs/redis.md shows it
// (`npm run docs:redis` writes the table; a unit test keeps the two equal).
//
// Only tests and scripts import this module: it imports the builders of every process, which no
// process needs. A new family: its builder in its module, an entry here, `npm run docs:redis`. The
// families of ingest and analytics are listed in registry-ingest.ts.
import { lifetime, owned, type KeyFamily } from './family.ts';
import { authKeyFamilies } from './registry-auth.ts';
import { ingestKeyFamilies } from './registry-ingest.ts';
import { BATCH_TTL_SECONDS, batchKeys } from '../batches.ts';
import { imageCheckSets, imageChecksKey } from '../photos/batch-image-checks.ts';
import { photoSummaryDoneKey, photoSummaryKey } from '../photos/batch-summary.ts';
import { webhookOutboxKey } from '../webhooks/outbox.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, webhookKeys } from '../webhooks/store.ts';
import { workerRegistryKeys } from '../worker-registry.ts';
import { inflightKey } from '../../stream/inflight-marks.ts';
import { jobLockKey } from '../../stream/jobs/schedule.ts';
import { LOCK_TTL_SECONDS as OWNERS_LOCK_TTL_SECONDS } from '../../stream/listings/owners-rebuild.ts';
import { moveLegacyOwnersBucket, ownersBucketKey, ownersRebuildKeys } from '../../stream/listings/owners.ts';
import { DELIVERY_TTL_SECONDS, deliveryQueueKeys } from '../../stream/webhooks/queue.ts';

const day = '2026-01-01';
const quotaAndTtl = (quota: string) => `the TTL and the account's daily ${quota} quota (ingest/quota.ts)`;
const perBatch = {
  ttl: lifetime(BATCH_TTL_SECONDS),
  bound: `${quotaAndTtl('listings')}: one per batch, a member per listing or image`,
};

export const keyFamilies: readonly KeyFamily[] = [
  ...authKeyFamilies,
  ...owned('common/batches.ts', [
    { name: 'batch:<batch>', type: 'hash', build: (p) => batchKeys(p, 'b1').record, ...perBatch },
    { name: 'batch:<batch>:pending', type: 'set', build: (p) => batchKeys(p, 'b1').pending, ...perBatch },
  ]),
  ...owned('common/photos/batch-image-checks.ts', [
    { name: 'batch:<batch>:images', type: 'hash', build: (p) => imageChecksKey(p, 'b1'), ...perBatch },
    {
      name: 'batch:<batch>:images:seen',
      type: 'set',
      build: (p) => imageCheckSets(imageChecksKey(p, 'b1')).seenListings,
      ...perBatch,
    },
    {
      name: 'batch:<batch>:images:done',
      type: 'set',
      build: (p) => imageCheckSets(imageChecksKey(p, 'b1')).doneImages,
      ...perBatch,
    },
  ]),
  ...owned('common/photos/batch-summary.ts', [
    { name: 'batch:<batch>:photos', type: 'hash', build: (p) => photoSummaryKey(p, 'b1'), ...perBatch },
    {
      name: 'batch:<batch>:photos:done',
      type: 'set',
      build: (p) => photoSummaryDoneKey(photoSummaryKey(p, 'b1')),
      ...perBatch,
    },
  ]),
  ...owned('common/webhooks/outbox.ts', [
    {
      name: 'outbox',
      type: 'stream',
      build: webhookOutboxKey,
      ttl: 'none',
      bound:
        'entries read and acknowledged by the delivery workers are trimmed, never capped: grows while delivery is behind (shown in /healthz)',
    },
  ]),
  ...owned('common/webhooks/store.ts', [
    {
      name: 'webhook:<webhook>',
      type: 'hash',
      build: (p) => webhookKeys(p).webhook('w1'),
      ttl: 'none',
      bound: `${MAX_WEBHOOKS_PER_ACCOUNT} per account (deleted ones are removed)`,
    },
    {
      name: 'account:<account>:webhooks',
      type: 'sorted set',
      build: (p) => webhookKeys(p).accountWebhooks('a1'),
      ttl: 'none',
      bound: `${MAX_WEBHOOKS_PER_ACCOUNT} members`,
    },
  ]),
  ...owned('common/worker-registry.ts', [
    {
      name: '{workers}',
      type: 'sorted set',
      build: (p) => workerRegistryKeys(p).beats,
      tag: 'single',
      legacy: { pattern: 'workers', rename: (p) => workerRegistryKeys(p).beats },
      ttl: 'none',
      bound: 'the live stream workers (stale ones are removed when read)',
    },
    {
      name: '{workers}:details',
      type: 'hash',
      build: (p) => workerRegistryKeys(p).details,
      tag: 'single',
      legacy: { pattern: 'workers:details', rename: (p) => workerRegistryKeys(p).details },
      ttl: 'none',
      bound: 'the live stream workers (stale ones are removed when read)',
    },
  ]),
  ...owned('stream/jobs/schedule.ts', [
    {
      name: '{job:<job>:<scheduled time>}',
      type: 'string',
      build: (p) => jobLockKey(p, 'usage-rollup', new Date(day)),
      tag: 'single',
      legacy: {
        pattern: 'job:*',
        rename: (p, suffix) => {
          const [, job, at] = /^job:([^:]+):(.+)$/.exec(suffix) ?? [];
          return job && at && !Number.isNaN(Date.parse(at)) ? jobLockKey(p, job, new Date(at)) : null;
        },
      },
      ttl: "the job's lockTtlMs (55 s to 6 h)",
      bound: 'the TTL: one per job run',
    },
  ]),
  ...owned('stream/listings/owners.ts', [
    {
      name: '{o:<bucket>}:owners:v2',
      type: 'hash',
      build: (p) => ownersBucketKey(p, '0a1b2c3d'),
      tag: 'listing bucket',
      legacy: {
        pattern: `owners:v2:${'[0-9a-f]'.repeat(5)}`,
        move: (redis, p, oldKey) => moveLegacyOwnersBucket(redis, p, oldKey),
      },
      ttl: 'none',
      bound:
        'unbounded: a field per listing ever stored (~63 bytes), in at most 1,048,576 buckets; rebuilt from ClickHouse if lost',
    },
    {
      // Moved after the buckets (registry order): a worker that finds it consumes without a rebuild.
      name: '{owners:v2:built}',
      type: 'string',
      build: (p) => ownersRebuildKeys(p).marker,
      tag: 'single',
      legacy: { pattern: 'owners:v2:built', rename: (p) => ownersRebuildKeys(p).marker },
      ttl: 'none',
      bound: 'one key',
    },
    {
      name: '{owners:rebuilding}',
      type: 'string',
      build: (p) => ownersRebuildKeys(p).lock,
      tag: 'single',
      legacy: { pattern: 'owners:rebuilding', rename: (p) => ownersRebuildKeys(p).lock },
      ttl: `${lifetime(OWNERS_LOCK_TTL_SECONDS)} (renewed while a rebuild runs)`,
      bound: 'one key',
    },
  ]),
  ...owned('stream/inflight-marks.ts', [
    {
      name: '{inflight:<group>:<topic>:<partition>}',
      type: 'hash',
      build: (p) => inflightKey(p, 'rls-stream', 'rls.listings.v1', 3),
      tag: 'single',
      legacy: {
        pattern: 'inflight:*',
        rename: (p, suffix) => {
          const [, group, topic, partition] = /^inflight:(.+):([^:]+):(\d+)$/.exec(suffix) ?? [];
          return group && topic && partition ? inflightKey(p, group, topic, Number(partition)) : null;
        },
      },
      ttl: "twice its newest mark's lifetime",
      bound: 'one per consumed partition, a field per batch in flight',
    },
  ]),
  ...owned('stream/webhooks/queue.ts', [
    {
      name: 'webhook:due-accounts',
      type: 'sorted set',
      build: (p) => deliveryQueueKeys(p).index,
      ttl: 'none',
      bound: 'a member per account with due deliveries (one key for all accounts)',
    },
    {
      name: 'webhook:leases',
      type: 'hash',
      build: (p) => deliveryQueueKeys(p).leases,
      ttl: 'none',
      bound: 'a field per delivery being attempted (one key for all accounts)',
    },
    {
      name: 'webhook:due:<account>',
      type: 'sorted set',
      build: (p) => deliveryQueueKeys(p).due('a1'),
      ttl: 'none',
      bound: "the account's pending deliveries (removed when delivered or given up)",
    },
    {
      name: 'webhook:delivery:<delivery>',
      type: 'hash',
      build: (p) => deliveryQueueKeys(p).delivery('d1'),
      ttl: lifetime(DELIVERY_TTL_SECONDS),
      bound: 'the TTL: a delivery per event and webhook (events come from quota-bounded work)',
    },
  ]),
  ...ingestKeyFamilies,
];
