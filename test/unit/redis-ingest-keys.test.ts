// The ingest and analytics key families on a Redis Cluster (common/redis-keys/registry-ingest.ts):
// one account's keys that a script or transaction touches together share a slot, two accounts'
// keys of one family land in different slots, market answers spread over the parts, and the
// migration's renames of the previous release's names give exactly the names the code now builds.
import { describe, expect, it } from 'vitest';
import { answerCacheKey } from '../../analytics-api/cache.ts';
import { estimateCellsKey } from '../../analytics-api/estimate-quota.ts';
import { accountStoredAtKey } from '../../common/account-stored-at.ts';
import { resendMarkKey } from '../../common/lifecycle/resend-marks.ts';
import { ingestKeyFamilies } from '../../common/redis-keys/registry-ingest.ts';
import { keySlot } from '../../common/redis-keys/slot.ts';
import { idempotencyKey } from '../../ingest/idempotency.ts';
import { snapshotKeys } from '../../ingest/lifecycle/snapshot-store.ts';
import { statusChangesKey } from '../../ingest/lifecycle/status-quota.ts';
import { claimsKey, seenKey } from '../../ingest/listings/seen-store.ts';
import { quotaKey } from '../../ingest/quota.ts';
import { viewGuardBucketKey } from '../../ingest/views/view-guard.ts';

const prefix = 'rls:';
const day = '2026-03-04';

/** Every key of `account` the ingest and analytics scripts touch together. */
const accountKeys = (account: string) => [
  quotaKey(prefix, account, 'live', day),
  idempotencyKey(prefix, { endpoint: 'bulk', accountId: account, mode: 'live' }, 'ab12'),
  seenKey(prefix, account, 'l1'),
  claimsKey(prefix, account, 'b1'),
  statusChangesKey(prefix, account, 'live', day),
  viewGuardBucketKey(prefix, { accountId: account, mode: 'live' }, day, 3),
  ...Object.values(snapshotKeys(prefix, account, false, 's1')),
  estimateCellsKey(prefix, account, 'live', new Date(day)),
  accountStoredAtKey(prefix, account),
  resendMarkKey(prefix, account, 'l1'),
  answerCacheKey(prefix, { key: `velocity:live:${account}`, perAccount: true }, account, 16),
];

describe('ingest and analytics keys on a cluster (happy)', () => {
  it("share the account's slot, and another account's slot differs", () => {
    const [a, b] = [accountKeys('acct_0001'), accountKeys('acct_0002')];
    expect(new Set(a.map(keySlot)).size).toBe(1);
    expect(new Set(b.map(keySlot)).size).toBe(1);
    expect(keySlot(a[0]!)).not.toBe(keySlot(b[0]!));
  });

  it('spread market answers over the parts by question', () => {
    const slots = new Set(
      Array.from({ length: 200 }, (_, i) =>
        keySlot(answerCacheKey(prefix, { key: `pricing:live:q${i}`, perAccount: false }, 'acct_1', 16)),
      ),
    );
    expect(slots.size).toBe(16);
  });
});

describe('ingest and analytics keys of the previous release (edge)', () => {
  const renamed = (pattern: string, suffix: string) => {
    const family = ingestKeyFamilies.find((f) => f.legacy?.pattern === pattern);
    return family?.legacy?.rename?.(prefix, suffix, 16);
  };

  it('are renamed under the account parsed from their name, to the names the code builds', () => {
    const account = 'acct_00aa';
    expect(renamed('quota:*', `quota:${account}:live:${day}`)).toBe(quotaKey(prefix, account, 'live', day));
    expect(renamed('idem:*', `idem:bulk:${account}:live:ab12`)).toBe(
      idempotencyKey(prefix, { endpoint: 'bulk', accountId: account, mode: 'live' }, 'ab12'),
    );
    expect(renamed('status-changes:*', `status-changes:${account}:test:${day}`)).toBe(
      statusChangesKey(prefix, account, 'test', day),
    );
    expect(renamed('vg:*', `vg:${account}:live:${day}:3`)).toBe(
      viewGuardBucketKey(prefix, { accountId: account, mode: 'live' }, day, 3),
    );
    expect(renamed('snapshot:*:ids', `snapshot:${account}:test:s1:ids`)).toBe(
      snapshotKeys(prefix, account, true, 's1').ids,
    );
    expect(renamed('snapshot:*', `snapshot:${account}:live:s1`)).toBe(
      snapshotKeys(prefix, account, false, 's1').record,
    );
    expect(renamed('estimate-cells:*', `estimate-cells:${account}:live:${day}`)).toBe(
      estimateCellsKey(prefix, account, 'live', new Date(day)),
    );
    expect(renamed('analytics:stored-at:*', `analytics:stored-at:${account}`)).toBe(
      accountStoredAtKey(prefix, account),
    );
  });

  it('leave the families without an account in their name to expire, or move them by their batch', () => {
    expect(renamed('lifecycle:resent:*', 'lifecycle:resent:l1')).toBeNull();
    expect(renamed('analytics:v2:*', 'analytics:v2:pricing:live:x')).toBeNull();
    const moved = ingestKeyFamilies.filter((f) => f.legacy?.move).map((f) => f.legacy!.pattern);
    expect(moved.sort()).toEqual(['claims:*', 'seen:*']);
  });
});
