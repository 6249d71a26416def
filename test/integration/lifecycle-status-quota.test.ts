// What status updates may cost (docs/auth.md, "Quotas"; docs/lifecycle.md): accepted updates count
// against the account's daily quota of its tier (429 for a request that does not fit), and one
// listing takes at most STATUS_CHANGES_PER_LISTING_DAY accepted updates a day (the entry past it
// fails with status_cap_reached, the rest of the request goes on). Fresh accounts per test.
import { describe, expect, it } from 'vitest';
import { tierPolicies } from '../../common/auth/tiers.ts';
import { STATUS_CHANGES_PER_LISTING_DAY } from '../../ingest/lifecycle/status-quota.ts';
import { quotaKey, utcDay } from '../../ingest/quota.ts';
import { createTestKey, env, testRedis } from '../support/api.ts';
import { daysAgo, postStatus, pushListings } from '../support/lifecycle.ts';

const cap = STATUS_CHANGES_PER_LISTING_DAY;

describe('status update quotas (error)', () => {
  it("caps one listing's changes per day; the entries past it fail, the others go on", async () => {
    const { key } = await createTestKey({ tier: 'free' });
    const [busy, other] = await pushListings(key, [{ listed_at: daysAgo(3) }, { listed_at: daysAgo(3) }]);
    const flips = Array.from({ length: cap + 2 }, (_, i) => ({
      listing_id: busy,
      status: i % 2 === 0 ? 'under_contract' : 'active',
    }));
    const res = await postStatus(key, [...flips, { listing_id: other, status: 'withdrawn' }]);
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({ total: cap + 3, succeeded: cap + 1, failed: 2 });
    for (const index of [cap, cap + 1]) {
      expect(res.body.results[index]).toEqual({
        index,
        success: false,
        errors: [
          {
            field: 'listing_id',
            code: 'status_cap_reached',
            message: expect.stringContaining(`already has ${cap} status changes today`),
          },
        ],
      });
    }
    expect(res.body.results[cap + 2]).toMatchObject({ success: true, listing_id: other });

    // The cap holds across requests: a later update of the listing is refused on its own.
    const later = await postStatus(key, [{ listing_id: busy, status: 'withdrawn' }]);
    expect(later.status).toBe(400);
    expect(later.body.error.code).toBe('all_listings_failed');
    expect(later.body.error.details.results[0].errors[0].code).toBe('status_cap_reached');
  });

  it("refuses a request whose accepted updates do not fit the tier's daily quota, counting nothing", async () => {
    const { key, account_id } = await createTestKey({ tier: 'free' });
    const [id] = await pushListings(key, [{ listed_at: daysAgo(3) }]);
    const limit = tierPolicies.free.statusUpdatesPerDay;
    // The day's count as if the account had sent limit − 2 updates already (the real counter).
    const quotaHash = quotaKey(env.REDIS_KEY_PREFIX, account_id, 'live', utcDay(new Date()));
    await (await testRedis()).hset(quotaHash, 'status_updates', limit - 2);

    const three = [0, 1, 2].map((i) => ({ listing_id: id, status: i % 2 ? 'active' : 'under_contract' }));
    const refused = await postStatus(key, three);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      retriable: true,
      details: { quota: 'status_updates_per_day', field: 'updates', limit, used: limit - 2, requested: 3 },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    expect((await postStatus(key, three.slice(0, 2))).status).toBe(200);
    expect(Number(await (await testRedis()).hget(quotaHash, 'status_updates'))).toBe(limit);
    const full = await postStatus(key, [{ listing_id: id, status: 'withdrawn' }]);
    expect(full.status).toBe(429);
    expect(full.body.error.details).toMatchObject({ used: limit, requested: 1 });
  });
});
