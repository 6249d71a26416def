// Every Redis key family the services write, in one list: its name, the module that owns it (it
// spells the name, in its builder, beside its reader and writer), the hash tag that places it on a
// Redis Cluster, how long a key lives and what bounds the family's growth. The key-family test
// (test/unit/redis-key-modules.test.ts) checks the code against it, and docs/redis.md shows it
// (`npm run docs:redis` writes the table; a unit test keeps the two equal).
//
// Only tests and scripts import this module: it imports the builders of every process, which no
// process needs. A new family: its builder in its module, an entry here, `npm run docs:redis`. The
// families of auth, ingest and analytics, and batches and webhooks are listed in registry-auth.ts,
// registry-ingest.ts and registry-batches-webhooks.ts.
import { lifetime, owned, type KeyFamily } from './family.ts';
import { authKeyFamilies } from './registry-auth.ts';
import { batchAndWebhookKeyFamilies } from './registry-batches-webhooks.ts';
import { ingestKeyFamilies } from './registry-ingest.ts';
import { workerRegistryKeys } from '../worker-registry.ts';
import { inflightKey } from '../../stream/inflight-marks.ts';
import { jobLockKey } from '../../stream/jobs/schedule.ts';
import { LOCK_TTL_SECONDS as OWNERS_LOCK_TTL_SECONDS } from '../../stream/listings/owners-rebuild.ts';
import { moveLegacyOwnersBucket, ownersBucketKey, ownersRebuildKeys } from '../../stream/listings/owners.ts';

const day = '2026-01-01';

export const keyFamilies: readonly KeyFamily[] = [
  ...authKeyFamilies,
  // Before the batches: the move of the previous release's seen ids reads their batch's record.
  ...ingestKeyFamilies,
  ...batchAndWebhookKeyFamilies,
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
      legacy: {
        pattern: 'owners:v2:built',
        rename: (p) => ownersRebuildKeys(p).marker,
        order: 'last', // a worker that finds the marker trusts the buckets: they move before it
      },
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
];
