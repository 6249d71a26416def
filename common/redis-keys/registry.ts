// Every Redis key family the services write, in one list: its name, the module that owns it (it
// spells the name, in its builder, beside its reader and writer), the hash tag that places it on a
// Redis Cluster, how long a key lives and what bounds the family's growth. The key-family test
// (test/unit/redis-key-modules.test.ts) checks the code against it, and docs/redis.md shows it
// (`npm run docs:redis` writes the table; a unit test keeps the two equal).
//
// Only tests and scripts import this module: it imports the builders of every process, which no
// process needs. A new family: its builder in its module, an entry here, `npm run docs:redis`.
import { lifetime, owned, type KeyFamily } from './family.ts';
import { batchAndWebhookKeyFamilies } from './registry-batches-webhooks.ts';
import { ACCOUNT_STORED_AT_TTL_SECONDS, accountStoredAtKey } from '../account-stored-at.ts';
import { RATE_WINDOW_MS } from '../auth/access-check.ts';
import { keyAuditDeadKey, keyAuditOutboxKey } from '../auth/key-audit.ts';
import { keyStoreKeys, REVOKED_KEPT_DAYS } from '../auth/key-store.ts';
import { RESEND_MARK_SECONDS, resendMarkKey } from '../lifecycle/resend-marks.ts';
import { accountRateWindowKey, DAY_TTL_SECONDS, DIRTY_TTL_SECONDS, dirtyKey } from '../usage/keys.ts';
import { MONTH_TTL_SECONDS, usageKeys } from '../usage/keys.ts';
import { workerRegistryKeys } from '../worker-registry.ts';
import { answerCacheKey } from '../../analytics-api/cache.ts';
import { estimateCellsKey } from '../../analytics-api/estimate-quota.ts';
import {
  IDEMPOTENCY_TTL_SECONDS,
  idempotencyKey,
  IN_PROGRESS_TTL_SECONDS,
} from '../../ingest/idempotency.ts';
import { COLLECTING_TTL_SECONDS, FINISHED_TTL_SECONDS } from '../../ingest/lifecycle/snapshot-store.ts';
import { snapshotKeys } from '../../ingest/lifecycle/snapshot-store.ts';
import { statusChangesKey } from '../../ingest/lifecycle/status-quota.ts';
import { CLAIM_TTL_SECONDS, claimsKey, SEEN_TTL_SECONDS, seenKey } from '../../ingest/listings/seen-store.ts';
import { QUOTA_TTL_SECONDS, quotaKey } from '../../ingest/quota.ts';
import { viewGuardBucketPrefix } from '../../ingest/views/view-guard.ts';
import { inflightKey } from '../../stream/inflight-marks.ts';
import { jobLockKey } from '../../stream/jobs/schedule.ts';
import { LOCK_TTL_SECONDS as OWNERS_LOCK_TTL_SECONDS } from '../../stream/listings/owners-rebuild.ts';
import { ownersBucketKey, ownersRebuildKeys } from '../../stream/listings/owners.ts';

const day = '2026-01-01';
const quotaAndTtl = (quota: string) => `the TTL and the account's daily ${quota} quota (ingest/quota.ts)`;
const keyRecord = {
  ttl: 'none',
  bound:
    'unbounded: one per key ever made (a revoked key keeps its record, so it is refused as revoked); ' +
    'keys are made by the operator and by admin keys within their daily quota',
};
const snapshotTtl = `${lifetime(COLLECTING_TTL_SECONDS)} collecting, ${lifetime(FINISHED_TTL_SECONDS)} finished`;
const rateWindow = lifetime(RATE_WINDOW_MS / 1000);

export const keyFamilies: readonly KeyFamily[] = [
  ...owned('common/auth/key-store.ts', [
    { name: 'key:h:<sha256>', type: 'hash', build: (p) => keyStoreKeys(p).byHash('ab12'), ...keyRecord },
    { name: 'key:id:<key>', type: 'string', build: (p) => keyStoreKeys(p).hashById('k1'), ...keyRecord },
    {
      name: 'keys',
      type: 'sorted set',
      build: (p) => keyStoreKeys(p).allKeys,
      ttl: 'none',
      bound: 'unbounded: a member per key ever made, of every account (one key for all accounts)',
    },
    {
      name: 'account:<account>',
      type: 'hash',
      build: (p) => keyStoreKeys(p).account('a1'),
      ttl: 'none',
      bound: 'one per account (accounts are made by the operator)',
    },
    {
      name: 'account:<account>:keys',
      type: 'set',
      build: (p) => keyStoreKeys(p).accountKeys('a1'),
      ttl: 'none',
      bound: `the account's keys, active or revoked in the last ${REVOKED_KEPT_DAYS} d (older ones are pruned on revoke and roll)`,
    },
    {
      name: 'account:<account>:admins',
      type: 'set',
      build: (p) => keyStoreKeys(p).accountAdmins('a1'),
      ttl: 'none',
      bound: "the account's admin keys that are not revoked",
    },
  ]),
  ...owned('common/auth/key-audit.ts', [
    {
      name: 'audit:keys',
      type: 'stream',
      build: keyAuditOutboxKey,
      ttl: 'none',
      bound:
        'an event leaves once copied to ClickHouse (right away, and every minute); grows only while ClickHouse is down',
    },
    {
      name: 'audit:keys:dead',
      type: 'stream',
      build: keyAuditDeadKey,
      ttl: 'none',
      bound: 'unbounded: events ClickHouse refused for their content, kept for the operator (none expected)',
    },
  ]),
  ...owned('common/usage/keys.ts', [
    {
      name: 'usage:<key>:d:<day>',
      type: 'hash',
      build: (p) => usageKeys(p, 'k1').day(day),
      ttl: lifetime(DAY_TTL_SECONDS),
      bound: 'the TTL; a field per endpoint called',
    },
    {
      name: 'usage:<key>:m:<month>',
      type: 'hash',
      build: (p) => usageKeys(p, 'k1').month('2026-01'),
      ttl: lifetime(MONTH_TTL_SECONDS),
      bound: 'the TTL; a field per endpoint called',
    },
    {
      name: 'usage:<key>:total',
      type: 'hash',
      build: (p) => usageKeys(p, 'k1').total,
      ttl: 'none',
      bound: 'unbounded: one per key ever used (like its record); a field per endpoint called',
    },
    {
      name: 'rl:<key>',
      type: 'string',
      build: (p) => usageKeys(p, 'k1').rateWindow,
      ttl: rateWindow,
      bound: 'the TTL: one per key used in the last window',
    },
    {
      name: 'rla:<account>',
      type: 'string',
      build: (p) => accountRateWindowKey(p, 'a1'),
      ttl: rateWindow,
      bound: 'the TTL: one per account active in the last window',
    },
    {
      name: 'usage:dirty:<day>',
      type: 'set',
      build: (p) => dirtyKey(p, day),
      ttl: lifetime(DIRTY_TTL_SECONDS),
      bound: 'the TTL; a member per key used that day (one key for all accounts)',
    },
  ]),
  ...batchAndWebhookKeyFamilies,
  ...owned('common/lifecycle/resend-marks.ts', [
    {
      name: 'lifecycle:resent:<listing>',
      type: 'string',
      build: (p) => resendMarkKey(p, 'l1'),
      ttl: lifetime(RESEND_MARK_SECONDS),
      bound: 'the TTL: a mark per listing re-sent that day (a listing is marked once a day at most)',
    },
  ]),
  ...owned('common/worker-registry.ts', [
    {
      name: 'workers',
      type: 'sorted set',
      build: (p) => workerRegistryKeys(p).beats,
      ttl: 'none',
      bound: 'the live stream workers (stale ones are removed when read)',
    },
    {
      name: 'workers:details',
      type: 'hash',
      build: (p) => workerRegistryKeys(p).details,
      ttl: 'none',
      bound: 'the live stream workers (stale ones are removed when read)',
    },
  ]),
  ...owned('common/account-stored-at.ts', [
    {
      name: '{a:<account>}:analytics:stored-at:<account>',
      type: 'string',
      build: (p) => accountStoredAtKey(p, 'a1'),
      tag: 'account',
      ttl: lifetime(ACCOUNT_STORED_AT_TTL_SECONDS),
      bound: 'the TTL: one per account that stored data in the last hour',
    },
  ]),
  ...owned('stream/jobs/schedule.ts', [
    {
      name: 'job:<job>:<scheduled time>',
      type: 'string',
      build: (p) => jobLockKey(p, 'usage-rollup', new Date(day)),
      ttl: "the job's lockTtlMs (55 s to 6 h)",
      bound: 'the TTL: one per job run',
    },
  ]),
  ...owned('analytics-api/cache.ts', [
    {
      name: 'analytics:v2:<question>',
      type: 'string',
      build: (p) => answerCacheKey(p, `listings:live:${day}`),
      ttl: 'ANALYTICS_CACHE_TTL_SECONDS (≤ 1 h, default 30 s)',
      bound: 'the TTL: one per distinct question asked within it (so by the rate limits)',
    },
  ]),
  ...owned('analytics-api/estimate-quota.ts', [
    {
      name: 'estimate-cells:<account>:<mode>:<day>',
      type: 'set',
      build: (p) => estimateCellsKey(p, 'a1', 'live', new Date(day)),
      ttl: lifetime(49 * 3600),
      bound: "the TTL and the tier's daily quota of distinct estimate cells (common/auth/tiers.ts)",
    },
  ]),
  ...owned('ingest/idempotency.ts', [
    {
      name: 'idem:<endpoint>:<account>:<mode>:<key digest>',
      type: 'hash',
      build: (p) => idempotencyKey(p, { endpoint: 'listings', accountId: 'a1', mode: 'live' }, 'ab12'),
      ttl: `${lifetime(IDEMPOTENCY_TTL_SECONDS)} (${lifetime(IN_PROGRESS_TTL_SECONDS)} while running)`,
      bound: "the TTL and the account's daily byte budget for kept responses (ingest/quota.ts)",
    },
  ]),
  ...owned(
    'ingest/lifecycle/snapshot-store.ts',
    (
      [
        ['', 'hash'],
        [':parts', 'set'],
        [':ids', 'set'],
        [':withdraw', 'list'],
      ] as const
    ).map(([suffix, type]) => ({
      name: `snapshot:<account>:<mode>:<snapshot>${suffix}`,
      type,
      build: (p: string) =>
        snapshotKeys(p, 'a1', false, 's1')[suffix ? (suffix.slice(1) as 'parts') : 'record'],
      ttl: snapshotTtl,
      bound: quotaAndTtl('snapshot ids'),
    })),
  ),
  ...owned('ingest/lifecycle/status-quota.ts', [
    {
      name: 'status-changes:<account>:<mode>:<day>',
      type: 'hash',
      build: (p) => statusChangesKey(p, 'a1', 'live', day),
      ttl: lifetime(QUOTA_TTL_SECONDS),
      bound: `${quotaAndTtl('status updates')}: a field per listing changed that day`,
    },
  ]),
  ...owned('ingest/listings/seen-store.ts', [
    {
      name: 'seen:<listing>',
      type: 'string',
      build: (p) => seenKey(p, 'l1'),
      ttl: lifetime(SEEN_TTL_SECONDS),
      bound: quotaAndTtl('listings'),
    },
    {
      name: 'claims:<batch>',
      type: 'string',
      build: (p) => claimsKey(p, 'b1'),
      ttl: `${lifetime(CLAIM_TTL_SECONDS)} while publishing, then ${lifetime(SEEN_TTL_SECONDS)}`,
      bound: 'the TTL: one per admitted request (so by the rate limits)',
    },
  ]),
  ...owned('ingest/quota.ts', [
    {
      name: 'quota:<account>:<mode>:<day>',
      type: 'hash',
      build: (p) => quotaKey(p, 'a1', 'live', day),
      ttl: lifetime(QUOTA_TTL_SECONDS),
      bound: 'the TTL: one per account and mode active that day, a few fields',
    },
  ]),
  ...owned('ingest/views/view-guard.ts', [
    {
      name: 'vg:<account>:<mode>:<day>:<n>',
      type: 'hash',
      build: (p) => `${viewGuardBucketPrefix(p, { accountId: 'a1', mode: 'live' }, day)}7`,
      ttl: lifetime(QUOTA_TTL_SECONDS),
      bound: quotaAndTtl('view events'),
    },
  ]),
  ...owned('stream/listings/owners.ts', [
    {
      name: 'owners:v2:<bucket>',
      type: 'hash',
      build: (p) => ownersBucketKey(p, '0a1b2c3d'),
      ttl: 'none',
      bound:
        'unbounded: a field per listing ever stored (~63 bytes), in at most 1,048,576 buckets; rebuilt from ClickHouse if lost',
    },
    {
      name: 'owners:v2:built',
      type: 'string',
      build: (p) => ownersRebuildKeys(p).marker,
      ttl: 'none',
      bound: 'one key',
    },
    {
      name: 'owners:rebuilding',
      type: 'string',
      build: (p) => ownersRebuildKeys(p).lock,
      ttl: `${lifetime(OWNERS_LOCK_TTL_SECONDS)} (renewed while a rebuild runs)`,
      bound: 'one key',
    },
  ]),
  ...owned('stream/inflight-marks.ts', [
    {
      name: 'inflight:<group>:<topic>:<partition>',
      type: 'hash',
      build: (p) => inflightKey(p, 'rls-stream', 'rls.listings.v1', 3),
      ttl: "twice its newest mark's lifetime",
      bound: 'one per consumed partition, a field per batch in flight',
    },
  ]),
];
