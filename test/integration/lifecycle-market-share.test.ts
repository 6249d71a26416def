// GET /analytics/market-share against a known market (lifecycle-fixtures.ts): Morogoro commercial
// listings of the calling account and of seven others, in a year of this file's own. Every figure
// and every suppression (fewer than 5 other accounts; one other account above 25 % of the rest;
// exactly 25 % is shown) is worked out by hand below.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestKey, type TestKey } from '../support/api.ts';
import {
  analytics,
  buildTimeline,
  claimLifecycleYear,
  insertViews,
  type TimelineListing,
} from '../support/lifecycle-fixtures.ts';

const scope = { city: 'morogoro', type: 'commercial', isTest: 0 as const };

/** A measure whose market figure is suppressed: the own count shows, the market figure and share do not. */
const suppressed = (measure: 'new_listings' | 'rented' | 'views', own: number) => ({
  [`own_${measure}`]: own,
  [`market_${measure}`]: null,
  [`${measure}_share`]: null,
  [`${measure}_suppressed`]: true,
});

describe('GET /analytics/market-share', () => {
  let year: number;
  let own: TestKey;
  let ownTest: TestKey;
  const other = (n: number) => `share-other-${n}-${runId}`;
  const runId = randomUUID().slice(0, 8);

  beforeAll(async () => {
    year = await claimLifecycleYear(scope);
    own = await createTestKey();
    ownTest = await createTestKey({ accountId: own.account_id, mode: 'test' });
    const at = (mmdd: string) => `${year}-${mmdd} 00:00:00`;
    const listing = (
      account: string,
      neighbourhood: string,
      listed: string,
      extra: Partial<TimelineListing> = {},
    ) => ({ account, neighbourhood, listed_at: at(listed), ...extra }) as TimelineListing;
    const times = (n: number, make: () => TimelineListing) => Array.from({ length: n }, make);
    const rentedInQ2 = { changes: [{ status: 'rented' as const, at: at('05-02') }] };
    const me = own.account_id;
    const listings: TimelineListing[] = [
      // Own: Boma A1 (Q1), A2 (Q2), A3 (Q2, rented in Q2); Mji Mpya A4 (Q2); Mafiga A5–A7 (Q1).
      listing(me, 'Boma', '02-10'),
      listing(me, 'Boma', '04-10'),
      listing(me, 'Boma', '04-12', { changes: [{ status: 'rented', at: at('05-01') }] }),
      listing(me, 'Mji Mpya', '05-05'),
      ...times(3, () => listing(me, 'Mafiga', '03-01')),
      // Boma: B1–B6 hold 2 each (Q1); B1–B5 rent one more out in Q2.
      ...[1, 2, 3, 4, 5, 6].flatMap((b) => times(2, () => listing(other(b), 'Boma', '03-01'))),
      ...[1, 2, 3, 4, 5].map((b) => listing(other(b), 'Boma', '03-01', rentedInQ2)),
      // Mji Mpya: B1–B4 list one each in Q2 (4 other accounts: too few).
      ...[1, 2, 3, 4].map((b) => listing(other(b), 'Mji Mpya', '04-20')),
      // Kingo: B1–B4 one each, B5 four (4 of the rest's 8: one account above 25 %).
      ...[1, 2, 3, 4].map((b) => listing(other(b), 'Kingo', '03-01')),
      ...times(4, () => listing(other(5), 'Kingo', '03-01')),
      // Mafiga: B1–B6 one each, B7 two (2 of 8: exactly 25 %, shown).
      ...[1, 2, 3, 4, 5, 6].map((b) => listing(other(b), 'Mafiga', '03-01')),
      ...times(2, () => listing(other(7), 'Mafiga', '03-01')),
      // B6 withdrew one in Q1: not stock.
      listing(other(6), 'Boma', '01-10', { changes: [{ status: 'withdrawn', at: at('02-01') }] }),
      // Noise: other type, next quarter, test mode (the own account's test listing).
      listing(other(1), 'Boma', '04-01', { type: 'house' }),
      listing(other(1), 'Boma', '07-01'),
      listing(me, 'Boma', '04-01', { isTest: 1 }),
    ];
    await buildTimeline(scope, listings, 7);
    // Views of Q2 by listing owner: own 10 in Boma; B1–B6 5 each in Boma; B7 30 in Mafiga. A Q1 view
    // of an own listing does not count.
    const view = (account: string, neighbourhood: string, count: number, viewed = '05-15') => ({
      is_test: 0 as const,
      viewed_at: at(viewed),
      property_type: 'commercial',
      city: 'morogoro',
      neighbourhood,
      listing_account_id: account,
      count,
    });
    await insertViews([
      view(me, 'Boma', 10),
      ...[1, 2, 3, 4, 5, 6].map((b) => view(other(b), 'Boma', 5)),
      view(other(7), 'Mafiga', 30),
      view(me, 'Mafiga', 7, '03-20'),
    ]);
  });

  it('happy: shows own counts always and market figures only where no competitor can be inferred', async () => {
    const res = await api(
      'GET',
      `/api/v1/analytics/market-share?city=morogoro&type=commercial&period=${year}-Q2`,
      {
        key: own.key,
      },
    );
    expect(res.status).toBe(200);
    // City, per other account: B1–B4 5 each, B5 7, B6 3, B7 2 on the market = 32 (top 7 = 21.9 %),
    // yet withheld: Kingo and Mji Mpya are (B5 holds 4 of Kingo's 8; Mji Mpya has 4 accounts), and
    // the city minus Boma and Mafiga would give their sum, 12 listings of which one account may
    // hold up to 5 (bounds: 4 + 1); with Mafiga withheld too, up to 7 of 20; with Boma every
    // neighbourhood would be: the city goes instead (complementary suppression).
    // New in Q2: only B1–B4 (4 accounts) → suppressed. Rented: B1–B5 one each. Views: B7 has 30 of 60.
    expect(res.body).toEqual({
      city: 'Morogoro',
      property_type: 'commercial',
      period: `${year}-Q2`,
      summary: {
        own_listings: 6,
        market_listings: null,
        share: null,
        suppressed: true,
        ...suppressed('new_listings', 3),
        own_rented: 1,
        market_rented: 6,
        rented_share: 0.1667,
        rented_suppressed: false,
        ...suppressed('views', 10),
      },
      by_neighborhood: [
        {
          name: 'Boma',
          own_listings: 2,
          market_listings: 14,
          share: 0.1429,
          suppressed: false,
          ...suppressed('new_listings', 2), // no other account listed here in Q2
          own_rented: 1,
          market_rented: 6,
          rented_share: 0.1667,
          rented_suppressed: false,
          own_views: 10,
          market_views: 40,
          views_share: 0.25,
          views_suppressed: false,
        },
        {
          name: 'Kingo',
          own_listings: 0,
          market_listings: null, // B5 holds 4 of the rest's 8
          share: null,
          suppressed: true,
          ...suppressed('new_listings', 0),
          ...suppressed('rented', 0),
          ...suppressed('views', 0),
        },
        {
          name: 'Mafiga',
          own_listings: 3,
          market_listings: 11, // B7 holds 2 of 8: exactly 25 % is not above it
          share: 0.2727,
          suppressed: false,
          ...suppressed('new_listings', 0),
          ...suppressed('rented', 0),
          ...suppressed('views', 0),
        },
        {
          name: 'Mji Mpya',
          own_listings: 1,
          market_listings: null, // 4 other accounts
          share: null,
          suppressed: true,
          ...suppressed('new_listings', 1),
          ...suppressed('rented', 0),
          ...suppressed('views', 0),
        },
      ],
    });
  });

  it('security: never names other accounts', async () => {
    const res = await api(
      'GET',
      `/api/v1/analytics/market-share?city=morogoro&type=commercial&period=${year}-Q2`,
      {
        key: own.key,
      },
    );
    expect(JSON.stringify(res.body)).not.toContain('share-other');
    // Another account sees its own counts, not the caller's.
    const stranger = await createTestKey();
    const theirs = await analytics(
      stranger.key,
      `market-share?city=morogoro&type=commercial&period=${year}-Q2`,
    );
    expect(theirs.summary).toMatchObject({ own_listings: 0, own_rented: 0, own_views: 0, market_rented: 6 });
    expect(theirs.by_neighborhood[0]).toMatchObject({ name: 'Boma', own_listings: 0, market_listings: 14 });
  });

  it('security: answers a test key from test-mode data only (test/live isolation)', async () => {
    const body = await analytics(ownTest.key, `market-share?city=morogoro&type=commercial&period=${year}-Q2`);
    expect(body.summary).toMatchObject({
      own_listings: 1,
      market_listings: null,
      suppressed: true,
      own_new_listings: 1,
    });
    expect(body.by_neighborhood.map((n: { name: string }) => n.name)).toEqual(['Boma']);
  });

  it('error, security: validates parameters and needs analytics:read', async () => {
    const bad = await api('GET', '/api/v1/analytics/market-share?city=morogoro&type=castle', {
      key: own.key,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toMatchObject({ parameter: 'type' });
    const free = await createTestKey({ tier: 'pro' });
    expect(
      (await api('GET', '/api/v1/analytics/market-share?city=morogoro&type=commercial', { key: free.key }))
        .status,
    ).toBe(403);
  });
});
