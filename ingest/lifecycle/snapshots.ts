// Complete snapshots as a service (docs/lifecycle.md, "Snapshots"): an account declares, by
// external_id and in one or more parts, every listing it has on the market. When the last part
// arrives, its listings on the market that carry an external_id missing from the snapshot are
// withdrawn (source snapshot) through the status stream — unless that would take more than 30 % of
// the account's stock off the market: then the snapshot is held until confirmed, so a truncated
// file cannot wipe a feed.
import { z } from 'zod';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { tierPolicies } from '../../common/auth/tiers.ts';
import { SNAPSHOT_GUARD_SHARE, type StatusItem, type StatusMessage } from '../../common/domain/lifecycle.ts';
import { externalIdPattern } from '../../common/domain/listing.ts';
import { text } from '../../common/domain/text.ts';
import { AppError, dependencyUnavailable } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { isTestMode } from '../listings/bulk-create.ts';
import type { QuotaStore } from '../quota.ts';
import type { SnapshotRecord, SnapshotStore } from './snapshot-store.ts';

export const MAX_SNAPSHOT_PARTS = 1_000;
export const MAX_IDS_PER_PART = 10_000;
const ITEMS_PER_MESSAGE = 1_000;
export const snapshotIdPattern = /^[A-Za-z0-9._:-]{1,64}$/;

export const snapshotPartSchema = z
  .strictObject({
    snapshot_id: text().regex(snapshotIdPattern).meta({ description: 'Your id of this snapshot' }),
    part: z.number().int().min(1).max(MAX_SNAPSHOT_PARTS),
    parts: z.number().int().min(1).max(MAX_SNAPSHOT_PARTS).meta({ description: 'Same in every part' }),
    external_ids: z
      .array(text().regex(externalIdPattern))
      .max(MAX_IDS_PER_PART)
      .meta({ description: 'The external_id of every listing of this part that is on the market' }),
    test_mode: z.boolean().optional(),
  })
  .refine((p) => p.part <= p.parts, { path: ['part'], message: 'part must not exceed parts' })
  .meta({ title: 'SnapshotPart' });
export type SnapshotPart = z.output<typeof snapshotPartSchema>;

export interface SnapshotDeps {
  store: SnapshotStore;
  /** Daily quota of snapshot external ids per account and mode (ingest/quota.ts). */
  quota: QuotaStore;
  /** The account's listings on the market (any external_id, '' for none). */
  activeStock(accountId: string, isTest: boolean): Promise<{ listing_id: string; external_id: string }[]>;
  publish(message: StatusMessage & { items: StatusItem[] }): Promise<void>;
  logger: Logger;
  now?: () => number;
}

/** Stores one part (validated by the route) and, with the last one, completes the snapshot. */
export async function submitPart(
  deps: SnapshotDeps,
  auth: ApiKeyRecord,
  p: SnapshotPart,
): Promise<SnapshotRecord> {
  const isTest = isTestMode(auth, p.test_mode);
  const at = new Date(deps.now?.() ?? Date.now());
  const now = at.toISOString();
  // The ids are counted before they are stored, and given back when the part stores nothing
  // (refused, or the snapshot finished already); a part received already is not counted again.
  // Only ids held in Redis use the quota.
  const owner = { accountId: auth.account_id, mode: isTest ? 'test' : 'live' } as const;
  const policy = tierPolicies[auth.tier];
  const resent = await deps.store
    .hasPart(auth.account_id, isTest, p.snapshot_id, p.part)
    .catch((error: unknown) => {
      throw dependencyUnavailable('redis', error);
    });
  const ids = resent ? 0 : p.external_ids.length;
  await deps.quota
    .reserve(owner, 'snapshot_ids', ids, policy.snapshotIdsPerDay, at)
    .catch((error: unknown) => {
      throw error instanceof AppError ? error : dependencyUnavailable('redis', error);
    });
  const added = await deps.store
    .addPart(auth.account_id, isTest, p.snapshot_id, {
      part: p.part,
      parts: p.parts,
      externalIds: p.external_ids,
      now,
      maxIds: policy.maxSnapshotIds,
    })
    .catch(async (error: unknown) => {
      await refund(deps, owner, ids, at, p.snapshot_id);
      throw dependencyUnavailable('redis', error);
    });
  if (!added.stored && ids > 0) await refund(deps, owner, ids, at, p.snapshot_id);
  if (added.state === 'mismatch') {
    throw new AppError('validation_failed', 'parts must be the same in every part of a snapshot', {
      details: [{ field: 'parts', code: 'conflicting_fields', message: 'differs from the first part' }],
    });
  }
  if (added.state === 'too_large') {
    throw new AppError(
      'snapshot_too_large',
      `A snapshot may declare at most ${policy.maxSnapshotIds} external ids on the ${auth.tier} tier; ` +
        `it holds ${added.received} and this part adds ${p.external_ids.length}`,
      {
        details: {
          field: 'external_ids',
          limit: policy.maxSnapshotIds,
          held: added.received,
          requested: p.external_ids.length,
        },
      },
    );
  }
  if (added.state === 'complete') {
    try {
      await complete(deps, auth.account_id, isTest, p.snapshot_id, now);
    } catch (error) {
      // Nothing was withdrawn (or the withdrawals are idempotent): the final part may be sent again.
      await deps.store.reopen(auth.account_id, isTest, p.snapshot_id, p.part).catch((reopenError: unknown) =>
        // The snapshot then stays `computing` with no withdrawals made, and a resent final part
        // changes nothing (snapshot-store.ts answers it as done): an operator has to know.
        deps.logger.warn('snapshot part not reopened after a failed completion', {
          account_id: auth.account_id,
          snapshot_id: p.snapshot_id,
          part: p.part,
          error: String(reopenError),
        }),
      );
      throw error instanceof AppError ? error : dependencyUnavailable('clickhouse', error);
    }
  }
  return (await deps.store.read(auth.account_id, isTest, p.snapshot_id))!;
}

async function refund(
  deps: SnapshotDeps,
  owner: { accountId: string; mode: 'live' | 'test' },
  ids: number,
  at: Date,
  snapshotId: string,
): Promise<void> {
  await deps.quota.refund(owner, 'snapshot_ids', ids, at).catch((error: unknown) =>
    // The account then has fewer ids left today than it should; it never has more.
    deps.logger.warn('snapshot ids not given back to the daily quota', {
      account_id: owner.accountId,
      snapshot_id: snapshotId,
      ids,
      error: String(error),
    }),
  );
}

async function complete(deps: SnapshotDeps, accountId: string, isTest: boolean, id: string, now: string) {
  const stock = await deps.activeStock(accountId, isTest);
  // Only listings pushed with an external_id can be declared; the others are never withdrawn here.
  const declarable = stock.filter((l) => l.external_id !== '');
  const declared = await deps.store.declared(
    accountId,
    isTest,
    id,
    declarable.map((l) => l.external_id),
  );
  const withdraw = declarable.filter((_, i) => !declared[i]).map((l) => l.listing_id);
  const held = stock.length > 0 && withdraw.length / stock.length > SNAPSHOT_GUARD_SHARE;
  if (!held) await publishWithdrawals(deps, accountId, isTest, id, withdraw, now);
  await deps.store.finish(accountId, isTest, id, {
    status: held ? 'held' : 'applied',
    completedAt: now,
    active: stock.length,
    withdraw,
  });
}

async function publishWithdrawals(
  deps: SnapshotDeps,
  accountId: string,
  isTest: boolean,
  id: string,
  listingIds: string[],
  completedAt: string,
) {
  for (let i = 0; i < listingIds.length; i += ITEMS_PER_MESSAGE) {
    await deps
      .publish({
        v: 1,
        kind: 'status',
        source: 'snapshot',
        account_id: accountId,
        is_test: isTest,
        received_at: new Date(deps.now?.() ?? Date.now()).toISOString(),
        snapshot_id: id,
        // Withdrawn as of the snapshot; a listing re-sent or changed since is left alone.
        items: listingIds.slice(i, i + ITEMS_PER_MESSAGE).map((listing_id) => ({
          listing_id,
          status: 'withdrawn' as const,
          at: completedAt,
          unless_updated_after: completedAt,
        })),
      })
      .catch((error: unknown) => {
        throw dependencyUnavailable('kafka', error);
      });
  }
}

/** Applies a held snapshot's withdrawals; a snapshot already applied is answered as it is. */
export async function confirmSnapshot(
  deps: SnapshotDeps,
  auth: ApiKeyRecord,
  id: string,
  testMode: boolean,
): Promise<SnapshotRecord> {
  const isTest = isTestMode(auth, testMode);
  const record = await readSnapshot(deps, auth, id, testMode);
  if (record.status === 'collecting' || record.status === 'computing') {
    throw new AppError('invalid_parameter', 'The snapshot is not complete yet; nothing to confirm', {
      details: [{ parameter: 'snapshot_id', status: record.status }],
    });
  }
  const held = await deps.store.pendingWithdrawals(auth.account_id, isTest, id);
  if (held) {
    // Published before the record flips to applied: a retry after a failure publishes again, which
    // the stream treats as no-ops for listings already withdrawn.
    await publishWithdrawals(deps, auth.account_id, isTest, id, held, record.completed_at!);
    await deps.store.markConfirmed(
      auth.account_id,
      isTest,
      id,
      new Date(deps.now?.() ?? Date.now()).toISOString(),
    );
  }
  return (await deps.store.read(auth.account_id, isTest, id))!;
}

export async function readSnapshot(
  deps: SnapshotDeps,
  auth: ApiKeyRecord,
  id: string,
  testMode: boolean,
): Promise<SnapshotRecord> {
  const record = snapshotIdPattern.test(id)
    ? await deps.store.read(auth.account_id, isTestMode(auth, testMode), id).catch((error: unknown) => {
        throw dependencyUnavailable('redis', error);
      })
    : null;
  if (!record) throw new AppError('not_found', `No snapshot ${id} in this account`);
  return record;
}
