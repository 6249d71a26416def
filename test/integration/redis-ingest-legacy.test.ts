// The previous release's seen ids and claims (named by listing and batch only) moved by the
// migration under the account of their batch (common/redis-keys/registry-ingest.ts): a listing
// pushed before the upgrade is still a duplicate after it, and moving again changes nothing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { scanAll } from '../../common/clients/redis.ts';
import { ingestKeyFamilies } from '../../common/redis-keys/registry-ingest.ts';
import { admissionStore } from '../../ingest/listings/admission.ts';
import { claimsKey, seenKey } from '../../ingest/listings/seen-store.ts';
import { testRedis } from '../support/api.ts';

const moveOf = (pattern: string) =>
  ingestKeyFamilies.find((f) => f.legacy?.pattern === pattern)!.legacy!.move!;

describe('seen ids and claims of the previous release (edge)', () => {
  it('move under their batch’s account, keep their TTL, and still answer duplicate', async () => {
    const redis = await testRedis();
    const prefix = `test:legacy:${randomUUID().slice(0, 8)}:`;
    const [account, batch, listing, orphan] = [
      `acct_${randomUUID()}`,
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ];
    // As the previous release left them: names without the account, and the batch's record.
    const old = {
      seen: [prefix, 'seen:', listing].join(''),
      claims: [prefix, 'claims:', batch].join(''),
      record: [prefix, 'batch:', batch].join(''),
      orphan: [prefix, 'seen:', orphan].join(''),
    };
    try {
      await redis.set(old.seen, `p:${batch}`, 'EX', 3600);
      await redis.set(old.claims, 'published', 'EX', 3600);
      await redis.hset(old.record, { batch_id: batch, account_id: account, is_test: '0' });
      await redis.set(old.orphan, `p:${randomUUID()}`, 'EX', 3600); // its batch record is gone

      for (let run = 0; run < 2; run++) {
        for (const key of [old.seen, old.orphan]) await moveOf('seen:*')(redis, prefix, key, 16);
        await moveOf('claims:*')(redis, prefix, old.claims, 16);
      }
      expect(await redis.get(seenKey(prefix, account, listing))).toBe(`p:${batch}`);
      expect(await redis.get(claimsKey(prefix, account, batch))).toBe('published');
      expect(await redis.ttl(seenKey(prefix, account, listing))).toBeGreaterThan(3500);
      expect(await redis.exists(old.seen, old.claims)).toBe(0);
      expect(await redis.get(old.orphan)).not.toBeNull(); // left to expire

      const admitted = await admissionStore(redis, prefix, 16).admit({
        batch: {
          batch_id: randomUUID(),
          account_id: account,
          is_test: false,
          total: 1,
          duplicates: 0,
          failed_indexes: [],
        },
        owner: { accountId: account, mode: 'live' },
        candidates: [listing],
        limit: 100,
        at: new Date(),
      });
      expect(admitted).toMatchObject({
        kind: 'admitted',
        holders: [{ batchId: batch, inFlight: false }],
        created: [],
      });
    } finally {
      const keys = await scanAll(redis, `${prefix}*`);
      if (keys.length) await redis.unlink(...keys);
    }
  });
});
