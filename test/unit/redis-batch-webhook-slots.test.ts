// Batches and webhooks on a Redis Cluster: an account's batch, outbox, webhooks and deliveries
// share its slot (the scripts that touch them together must), two accounts' do not, and the
// indexes every account writes into are spread over REDIS_GLOBAL_PARTS parts.
import { describe, expect, it } from 'vitest';
import { accountStoredAtKey } from '../../common/account-stored-at.ts';
import { batchKeys } from '../../common/batches.ts';
import { imageCheckSets, imageChecksKey } from '../../common/photos/batch-image-checks.ts';
import { photoSummaryDoneKey, photoSummaryKey } from '../../common/photos/batch-summary.ts';
import { keySlot } from '../../common/redis-keys/slot.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { outboxIndexKeys, webhookOutboxKey } from '../../common/webhooks/outbox.ts';
import { webhookKeys } from '../../common/webhooks/store.ts';
import { deliveryQueueKeys, dueIndexKeys } from '../../stream/webhooks/queue.ts';

const prefix = 'rls:';

/** Every key of one account's batch and webhook families. */
function accountKeys(account: string, batch: string): string[] {
  const images = imageChecksKey(prefix, account, batch);
  const photos = photoSummaryKey(prefix, account, batch);
  const queue = deliveryQueueKeys(prefix);
  return [
    ...Object.values(batchKeys(prefix, account, batch)),
    accountStoredAtKey(prefix, account),
    images,
    ...Object.values(imageCheckSets(images)),
    photos,
    photoSummaryDoneKey(photos),
    webhookOutboxKey(prefix, account),
    webhookKeys(prefix).webhook(account, 'wh_1'),
    webhookKeys(prefix).accountWebhooks(account),
    queue.due(account),
    queue.leases(account),
    queue.delivery(account, 'msg_1'),
  ];
}

describe('batch and webhook keys on a cluster (edge)', () => {
  it("puts every key of one account's batches and webhooks in one slot", () => {
    for (const account of ['acct_1', 'acct_2', 'a:b']) {
      const slots = new Set(accountKeys(account, '0b7f2a5c-1d8e-4f3a-9c6b-2e4d8a1f7c3e').map(keySlot));
      expect([...slots]).toHaveLength(1);
    }
  });

  it("puts two accounts' keys in different slots", () => {
    const slotOf = (account: string) => keySlot(accountKeys(account, 'b1')[0]!);
    const accounts = Array.from({ length: 50 }, (_, i) => `acct_${i}`);
    expect(new Set(accounts.map(slotOf)).size).toBeGreaterThan(40);
  });

  it('spreads the outbox and due indexes over their parts, and the accounts over the parts', () => {
    const parts = 16;
    for (const keysOf of [outboxIndexKeys, dueIndexKeys]) {
      const slots = Array.from({ length: parts }, (_, n) => keysOf(prefix, n));
      for (const part of slots) expect(keySlot(part.order)).toBe(keySlot(part.stamps));
      expect(new Set(slots.map((part) => keySlot(part.order))).size).toBe(parts);
    }
    const accounts = Array.from({ length: 200 }, (_, i) => `acct_${i}`);
    expect(new Set(accounts.map((a) => partOf(a, parts))).size).toBe(parts);
  });
});
