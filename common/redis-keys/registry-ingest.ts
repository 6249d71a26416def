// The key families of ingest and analytics (quotas, idempotency records, claims and seen ids, view
// guards, snapshots, the analytics cache and its stored-at marks, re-send marks), for the registry
// (registry.ts), with how the previous release named them and how `npm run redis:migrate` moves
// them. Only tests and scripts import this module, like the registry.
//
// Most of them moved under their account's hash tag with their old name kept after it, so a key
// moves whole: the account is a field of its old name. Three families did not name the account:
// - seen ids and claims: moved under the account of the batch that holds them, read from that
//   batch's record of the previous release (kept 7 d); those whose batch record is gone are left to
//   expire (30 d): such a listing pushed again is answered `created` once more, counted against
//   the quota again, and skipped by the stream as stored — what the end of the 30-day duplicate
//   window does anyway;
// - re-send marks (24 h) are left to expire: a listing re-sent again that day is reported to the
//   status stream once more, which changes nothing but its expiry clock;
// - analytics answers (≤ 1 h) are left to expire: the next request computes them again.
import type { Redis } from 'ioredis';
import { lifetime, owned, type KeyFamily, type LegacyNames } from './family.ts';
import { accountSpace } from './tags.ts';
import { ACCOUNT_STORED_AT_TTL_SECONDS, accountStoredAtKey } from '../account-stored-at.ts';
import { RESEND_MARK_SECONDS, resendMarkKey } from '../lifecycle/resend-marks.ts';
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
import {
  CLAIM_TTL_SECONDS,
  claimsKey,
  PENDING_PREFIX,
  SEEN_TTL_SECONDS,
  seenKey,
} from '../../ingest/listings/seen-store.ts';
import { QUOTA_TTL_SECONDS, quotaKey } from '../../ingest/quota.ts';
import { viewGuardBucketKey } from '../../ingest/views/view-guard.ts';

const day = '2026-01-01';
const quotaAndTtl = (quota: string) => `the TTL and the account's daily ${quota} quota (ingest/quota.ts)`;
const snapshotTtl = `${lifetime(COLLECTING_TTL_SECONDS)} collecting, ${lifetime(FINISHED_TTL_SECONDS)} finished`;

/**
 * The previous release's `pattern` keys, whose name's field `field` (by `:`) is the account: each
 * moves whole under its account's tag, its old name kept after it.
 */
export function underAccount(pattern: string, field: number): LegacyNames {
  return {
    pattern,
    rename: (prefix, suffix) => {
      const account = suffix.split(':')[field];
      return account ? `${accountSpace(prefix, account)}${suffix}` : null;
    },
  };
}

/** Keys the migration leaves where they are: they expire (why: this module's header). */
const leftToExpire = (pattern: string): LegacyNames => ({ pattern, rename: () => null });

/**
 * Moves a seen id (`seen:<listing>`, value `p:<batch>` or a batch id) or a batch's claims key
 * (`claims:<batch>`) under the account of its batch, read from the previous release's batch record
 * (`<old prefix>batch:<batch>`). Nothing to do when the old key is gone; left to expire when the
 * record is. Copies value and TTL (NX: a key the new release wrote meanwhile wins), then deletes
 * the old key: idempotent, and safe to run again after a stop in between.
 */
async function moveUnderBatchAccount(redis: Redis, prefix: string, oldKey: string): Promise<void | 'left'> {
  const match = /^(.*)(seen|claims):([^:]+)$/.exec(oldKey);
  if (!match) return 'left';
  const [, oldPrefix, family, id] = match as unknown as [string, string, 'seen' | 'claims', string];
  const [value, ttlMs] = await Promise.all([redis.get(oldKey), redis.pttl(oldKey)]);
  if (value === null) return;
  const batchId =
    family === 'claims' ? id : value.startsWith(PENDING_PREFIX) ? value.slice(PENDING_PREFIX.length) : value;
  const previousBatchRecord = [oldPrefix, 'batch:', batchId].join('');
  const account = await redis.hget(previousBatchRecord, 'account_id');
  if (!account) return 'left'; // its batch expired: it expires where it is
  const newKey = family === 'seen' ? seenKey(prefix, account, id) : claimsKey(prefix, account, id);
  if (ttlMs > 0) await redis.set(newKey, value, 'PX', ttlMs, 'NX');
  else await redis.set(newKey, value, 'NX');
  await redis.del(oldKey);
}

export const ingestKeyFamilies: readonly KeyFamily[] = [
  ...owned('common/lifecycle/resend-marks.ts', [
    {
      name: '{a:<account>}:lifecycle:resent:<listing>',
      type: 'string',
      build: (p) => resendMarkKey(p, 'a1', 'l1'),
      tag: 'account',
      legacy: leftToExpire('lifecycle:resent:*'),
      ttl: lifetime(RESEND_MARK_SECONDS),
      bound: 'the TTL: a mark per listing re-sent that day (a listing is marked once a day at most)',
    },
  ]),
  ...owned('common/account-stored-at.ts', [
    {
      name: '{a:<account>}:analytics:stored-at:<account>',
      type: 'string',
      build: (p) => accountStoredAtKey(p, 'a1'),
      tag: 'account',
      legacy: underAccount('analytics:stored-at:*', 2),
      ttl: lifetime(ACCOUNT_STORED_AT_TTL_SECONDS),
      bound: 'the TTL: one per account that stored data in the last hour',
    },
  ]),
  ...owned('analytics-api/cache.ts', [
    {
      name: '{a:<account>}:analytics:v2:<question>',
      type: 'string',
      build: (p) => answerCacheKey(p, { key: `velocity:live:a1:${day}`, perAccount: true }, 'a1', 16),
      tag: 'account',
      legacy: leftToExpire('analytics:v2:*'),
      ttl: 'ANALYTICS_CACHE_TTL_SECONDS (≤ 1 h, default 30 s)',
      bound:
        "the TTL: one per distinct question of the account's own asked within it (so by the rate limits)",
    },
    {
      name: '{g:<part>}:analytics:v2:<question>',
      type: 'string',
      build: (p) => answerCacheKey(p, { key: `pricing:live:${day}`, perAccount: false }, 'a1', 16),
      tag: 'part',
      ttl: 'ANALYTICS_CACHE_TTL_SECONDS (≤ 1 h, default 30 s)',
      bound: 'the TTL: one per distinct market question asked within it (so by the rate limits)',
    },
  ]),
  ...owned('analytics-api/estimate-quota.ts', [
    {
      name: '{a:<account>}:estimate-cells:<account>:<mode>:<day>',
      type: 'set',
      build: (p) => estimateCellsKey(p, 'a1', 'live', new Date(day)),
      tag: 'account',
      legacy: underAccount('estimate-cells:*', 1),
      ttl: lifetime(49 * 3600),
      bound: "the TTL and the tier's daily quota of distinct estimate cells (common/auth/tiers.ts)",
    },
  ]),
  ...owned('ingest/idempotency.ts', [
    {
      name: '{a:<account>}:idem:<endpoint>:<account>:<mode>:<key digest>',
      type: 'hash',
      build: (p) => idempotencyKey(p, { endpoint: 'listings', accountId: 'a1', mode: 'live' }, 'ab12'),
      tag: 'account',
      legacy: underAccount('idem:*', 2),
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
      name: `{a:<account>}:snapshot:<account>:<mode>:<snapshot>${suffix}`,
      type,
      build: (p: string) =>
        snapshotKeys(p, 'a1', false, 's1')[suffix ? (suffix.slice(1) as 'parts') : 'record'],
      tag: 'account' as const,
      // `snapshot:*` is each of the four: a snapshot's keys move together, by the same rename.
      legacy: underAccount(suffix ? `snapshot:*${suffix}` : 'snapshot:*', 1),
      ttl: snapshotTtl,
      bound: quotaAndTtl('snapshot ids'),
    })),
  ),
  ...owned('ingest/lifecycle/status-quota.ts', [
    {
      name: '{a:<account>}:status-changes:<account>:<mode>:<day>',
      type: 'hash',
      build: (p) => statusChangesKey(p, 'a1', 'live', day),
      tag: 'account',
      legacy: underAccount('status-changes:*', 1),
      ttl: lifetime(QUOTA_TTL_SECONDS),
      bound: `${quotaAndTtl('status updates')}: a field per listing changed that day`,
    },
  ]),
  ...owned('ingest/listings/seen-store.ts', [
    {
      name: '{a:<account>}:seen:<listing>',
      type: 'string',
      build: (p) => seenKey(p, 'a1', 'l1'),
      tag: 'account',
      legacy: {
        pattern: 'seen:*',
        move: (redis, prefix, oldKey) => moveUnderBatchAccount(redis, prefix, oldKey),
        order: 'first', // it reads the previous release's batch record
      },
      ttl: lifetime(SEEN_TTL_SECONDS),
      bound: quotaAndTtl('listings'),
    },
    {
      name: '{a:<account>}:claims:<batch>',
      type: 'string',
      build: (p) => claimsKey(p, 'a1', 'b1'),
      tag: 'account',
      legacy: {
        pattern: 'claims:*',
        move: (redis, prefix, oldKey) => moveUnderBatchAccount(redis, prefix, oldKey),
        order: 'first', // it reads the previous release's batch record
      },
      ttl: `${lifetime(CLAIM_TTL_SECONDS)} while publishing, then ${lifetime(SEEN_TTL_SECONDS)}`,
      bound: 'the TTL: one per admitted request (so by the rate limits)',
    },
  ]),
  ...owned('ingest/quota.ts', [
    {
      name: '{a:<account>}:quota:<account>:<mode>:<day>',
      type: 'hash',
      build: (p) => quotaKey(p, 'a1', 'live', day),
      tag: 'account',
      legacy: underAccount('quota:*', 1),
      ttl: lifetime(QUOTA_TTL_SECONDS),
      bound: 'the TTL: one per account and mode active that day, a few fields',
    },
  ]),
  ...owned('ingest/views/view-guard.ts', [
    {
      name: '{a:<account>}:vg:<account>:<mode>:<day>:<n>',
      type: 'hash',
      build: (p) => viewGuardBucketKey(p, { accountId: 'a1', mode: 'live' }, day, 7),
      tag: 'account',
      legacy: underAccount('vg:*', 1),
      ttl: lifetime(QUOTA_TTL_SECONDS),
      bound: quotaAndTtl('view events'),
    },
  ]),
];
