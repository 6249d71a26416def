// Attacks on withheld market figures (docs/analytics.md, "Suppression"), replayed against a known
// market of Mwanza land in a year of this file's own: recovering a hidden neighbourhood as the city
// minus the neighbourhoods shown (market share and velocity), velocity showing a figure market share
// withholds, the order of velocity's neighbourhoods, and seasonality's months of one account.
//
// Q2: Bahari 20 accounts with one listing each (listed 10 April), and B1 three more rented on 20 May;
// Kati 6 accounts with 2 each; Pwani 10 accounts with 1 each (all 10 April); Ajali the victim's
// 3 listings (5 May). A city of Mwanza studios holds the victim's listings alone.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestKey, type TestKey } from '../support/api.ts';
import {
  analytics,
  buildTimeline,
  claimLifecycleYear,
  type TimelineListing,
} from '../support/lifecycle-fixtures.ts';

const scope = { city: 'mwanza', type: 'land', isTest: 0 as const };
const alone = { city: 'mwanza', type: 'studio', isTest: 0 as const };

interface Area {
  name: string;
  [figure: string]: unknown;
}

describe('withheld market figures cannot be recovered (security)', () => {
  let year: number;
  let aloneYear: number;
  let attacker: TestKey;
  const runId = randomUUID().slice(0, 8);
  let victim: TestKey;
  const other = (area: string, n: number) => `${area}-${n}-${runId}`;

  beforeAll(async () => {
    [year, aloneYear] = [await claimLifecycleYear(scope), await claimLifecycleYear(alone)];
    attacker = await createTestKey();
    victim = await createTestKey();
    const listing = (
      account: string,
      neighbourhood: string,
      listed: string,
      extra: Partial<TimelineListing> = {},
    ) => ({ account, neighbourhood, listed_at: `${year}-${listed} 00:00:00`, ...extra }) as TimelineListing;
    const each = (area: string, accounts: number, per: number, listed: string) =>
      Array.from({ length: accounts }, (_, i) =>
        Array.from({ length: per }, () => listing(other(area, i + 1), area, listed)),
      ).flat();
    const rented = { changes: [{ status: 'rented' as const, at: `${year}-05-20 00:00:00` }] };
    await buildTimeline(
      scope,
      [
        ...each('Bahari', 20, 1, '04-10'),
        ...Array.from({ length: 3 }, () => listing(other('Bahari', 1), 'Bahari', '04-10', rented)),
        ...each('Kati', 6, 2, '04-10'),
        ...each('Pwani', 10, 1, '04-10'),
        ...Array.from({ length: 3 }, () => listing(victim.account_id, 'Ajali', '05-05')),
      ],
      3,
    );
    await buildTimeline(
      alone,
      [
        ...Array.from({ length: 3 }, () => ({
          account: victim.account_id,
          neighbourhood: 'Ajali',
          listed_at: `${aloneYear}-04-10 00:00:00`,
          price: 250_000,
        })),
        {
          account: victim.account_id,
          neighbourhood: 'Ajali',
          listed_at: `${aloneYear}-04-10 00:00:00`,
          changes: [{ status: 'rented' as const, at: `${aloneYear}-05-02 00:00:00` }],
        },
      ],
      1,
    );
  });

  const area = (body: { by_neighborhood: Area[] }, name: string) =>
    body.by_neighborhood.find((n) => n.name === name)!;

  it('market share: the city minus the neighbourhoods shown never gives a withheld one', async () => {
    const body = await analytics(attacker.key, `market-share?city=mwanza&type=land&period=${year}-Q2`);
    // Ajali alone is one account's; with Pwani (the smallest safe) the withheld sum could still be
    // mostly one account's (at most 3 + 1 of 13), with Kati too it cannot (at most 6 of 25).
    expect(body.summary).toMatchObject({ market_listings: 45, market_new_listings: 48 });
    expect(area(body, 'Bahari')).toMatchObject({ market_listings: 20, market_new_listings: 23 });
    for (const name of ['Ajali', 'Kati', 'Pwani']) {
      expect(area(body, name), name).toMatchObject({
        market_listings: null,
        suppressed: true,
        market_new_listings: null,
        new_listings_suppressed: true,
      });
    }
    // What subtraction gives is the three together, never Ajali's 3.
    const shown = body.by_neighborhood.reduce(
      (sum: number, n: Area) => sum + ((n.market_listings as number | null) ?? 0),
      0,
    );
    expect(body.summary.market_listings - shown).toBe(25);
  });

  it('velocity: the same figures withheld as market share, each on its own, and no subtraction', async () => {
    const body = await analytics(attacker.key, `velocity?city=mwanza&type=land&period=${year}-Q2`);
    const share = await analytics(attacker.key, `market-share?city=mwanza&type=land&period=${year}-Q2`);
    // Bahari's 3 rentals are one account's: market share withholds them, so velocity does too
    // (the area is shown: 23 accounts are on its market).
    expect(area(share, 'Bahari')).toMatchObject({ market_rented: null, rented_suppressed: true });
    expect(area(body, 'Bahari')).toMatchObject({
      rented: null,
      median_days_to_rent: null,
      absorption: null,
      new_listings: 23,
      active: 20,
      average_active: expect.any(Number),
      market_suppressed: true,
    });
    expect(area(body, 'Bahari').withheld).toContain('rented');
    expect(body.summary).toMatchObject({ rented: null, new_listings: 48, active: 45 });
    for (const name of ['Ajali', 'Kati', 'Pwani']) {
      expect(area(body, name), name).toMatchObject({
        new_listings: null,
        active: null,
        average_active: null,
      });
    }
  });

  it('velocity orders neighbourhoods by name, not by their (withheld) figures', async () => {
    const body = await analytics(attacker.key, `velocity?city=mwanza&type=land&period=${year}-Q2`);
    expect(body.by_neighborhood.map((n: Area) => n.name)).toEqual(['Ajali', 'Bahari', 'Kati', 'Pwani']);
  });

  it("seasonality: a month of one account is withheld, and so is what the quarter's figure would give away", async () => {
    const body = await analytics(attacker.key, `seasonality?city=mwanza&type=land&months=3&end=${year}-06`);
    const [april, may, june] = body.months;
    // May's listings are the victim's alone; June has none; the quarter's 48 new listings (velocity)
    // minus April's would give May's, so April's go too.
    for (const month of [april, may, june]) {
      expect(month).toMatchObject({
        listed: null,
        new_listings: null,
        median_price_tzs: null,
        suppressed: true,
      });
    }
    expect(may.withheld).toEqual(expect.arrayContaining(['listed', 'new_listings', 'raw_median_price_tzs']));
    // Views and rentals: nobody else is behind them either.
    expect(may).toMatchObject({ rented: null, views: null });
  });

  it('seasonality: a city of one account shows none of its market figures', async () => {
    const body = await analytics(
      attacker.key,
      `seasonality?city=mwanza&type=studio&months=3&end=${aloneYear}-06`,
    );
    for (const month of body.months) {
      expect(month).toMatchObject({
        listed: null,
        new_listings: null,
        average_active: null,
        views_per_active_listing: null,
        rented: null,
        median_price_tzs: null,
        raw_median_price_tzs: null,
        suppressed: true,
      });
    }
    expect(body.mix_weights).toEqual([]);
    // The victim itself sees its own market withheld too: nobody else is behind it.
    const own = await analytics(
      victim.key,
      `seasonality?city=mwanza&type=studio&months=3&end=${aloneYear}-06`,
    );
    expect(own.months[0]).toMatchObject({ listed: null, suppressed: true });
  });
});
