// The view guard's buckets against the real Redis (ingest/views/view-guard.ts): the client picks
// the buckets a request touches from the day's bucket count and passes them to the script, which
// checks that count. Concurrent first requests of an account's day (each process with its own
// remembered counts) still count every event once and detect a repeated event id across requests.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { quotaKey, utcDay } from '../../ingest/quota.ts';
import { viewGuard, viewGuardBucketKey, type GuardedEvent } from '../../ingest/views/view-guard.ts';
import { env, testRedis } from '../support/api.ts';

const prefix = env.REDIS_KEY_PREFIX;
const day = utcDay(new Date());
const event = (clientEventId?: string): GuardedEvent => ({
  clientEventId,
  listingId: randomUUID(),
  viewer: `id:${randomUUID()}`,
  viewedDay: day,
});

describe('view guard buckets (happy)', () => {
  it("counts each event once when an account's day starts in several processes at once", async () => {
    const redis = await testRedis();
    const owner = { accountId: `acct_vg_${randomUUID()}`, mode: 'live' as const };
    const shared: GuardedEvent = { ...event('shared'), viewer: 'id:v1' };
    const requests = Array.from({ length: 8 }, () => [shared, event(), event(randomUUID())]);
    // A guard per request: none remembers a count another one fixed.
    const answers = await Promise.all(
      requests.map((events) => viewGuard(redis, prefix).admit(owner, events, 10_000)),
    );
    const sharedAccepted = answers.filter((statuses) => statuses[0] === 'accepted').length;
    expect(sharedAccepted).toBe(1);
    expect(answers.flatMap((statuses) => statuses.slice(1))).toEqual(Array(16).fill('accepted'));
    const quota = quotaKey(prefix, owner.accountId, owner.mode, day);
    expect(await redis.hmget(quota, 'views', 'view_buckets')).toEqual(['17', '16']);
  });
});

describe('view guard buckets (edge)', () => {
  it('reads the day’s bucket count again when it is not the one it remembered', async () => {
    const redis = await testRedis();
    const owner = { accountId: `acct_vg_${randomUUID()}`, mode: 'live' as const };
    const guard = viewGuard(redis, prefix);
    expect(await guard.admit(owner, [event('a')], 10_000)).toEqual(['accepted']); // remembers 16
    const quota = quotaKey(prefix, owner.accountId, owner.mode, day);
    await redis.hset(quota, 'view_buckets', 20); // what the script checks against
    const again = event('b');
    expect(await guard.admit(owner, [again], 10_000)).toEqual(['accepted']);
    expect(await guard.admit(owner, [again], 10_000)).toEqual(['duplicate']);
    expect(await redis.hmget(quota, 'views', 'view_buckets')).toEqual(['2', '20']);
    const buckets = await Promise.all(
      Array.from({ length: 20 }, (_, n) => redis.exists(viewGuardBucketKey(prefix, owner, day, n))),
    );
    expect(buckets.filter(Boolean).length).toBeGreaterThan(0);
  });
});
