// The aggregates fed from another aggregate's blocks (migration 0100) hold what a direct query over
// the base tables says: listing counts and price sums per quarter and neighbourhood
// (neighbourhood_quarter_stats ← neighbourhood_quarter_prices), the stock on the market now
// (account_area_stock ← account_quarter_flows) and the spells per start month
// (market_cohort_days ← market_daily_flows and the status changes). Listings go into `listings`,
// their status changes into `listing_status_changes` as the stream's status processor writes them
// (its own transition and row code), each in several inserts; the views of the real server do
// the rest.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS, type ListingStatus } from '../../common/domain/lifecycle.ts';
import type { PropertyType } from '../../common/domain/listing.ts';
import type { ListingState } from '../../common/lifecycle/states.ts';
import { listingStatusChangesTable, type ListingStatusChangeRow } from '../../common/warehouse/lifecycle.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import { changeRow } from '../../stream/lifecycle/rows.ts';
import { applyChange } from '../../stream/lifecycle/transition.ts';
import { testClickHouse } from '../support/api.ts';
import { claimYear, insertListings, type ListingRow } from '../support/analytics-fixtures.ts';
import { rows } from '../support/stream.ts';

const account = `cascade-${randomUUID()}`;
const neighbourhoods = ['Mikocheni', 'Sinza', 'Kariakoo'];
const types: PropertyType[] = ['apartment', 'house'];

/** Each listing's changes: [status, days after listed_at]. */
const timelines: [ListingStatus, number][][] = [
  [],
  [['under_contract', 3]],
  [['rented', 10]],
  [
    ['withdrawn', 5],
    ['rented', 8],
  ], // relabel
  [
    ['rented', 12],
    ['active', 20],
  ], // return within 30 days: the spell continues
  [
    ['withdrawn', 7],
    ['active', 60],
  ], // relist after 30 days: a new spell
  [
    ['expired', 60],
    ['active', 100],
    ['rented', 130],
  ], // relist, then the new spell closes
  [
    ['rented', 4],
    ['active', 10],
    ['withdrawn', 40],
  ], // return, then the same spell closes again
];

describe('aggregates fed from aggregates (0100)', () => {
  let year: number;
  const from = () => `${year}-01-01`;
  const to = () => `${year + 1}-01-01`;

  beforeAll(async () => {
    year = await claimYear();
    const listings: ListingRow[] = [];
    for (let i = 0; i < 48; i++) {
      listings.push({
        account_id: account,
        is_test: 0,
        // Spread over the first half of the year (every change stays inside it), some in one second.
        listed_at: new Date(Date.UTC(year, Math.floor(i / 8), 1 + (i % 27), i % 3 === 0 ? 9 : 17, i % 2))
          .toISOString()
          .replace('T', ' ')
          .slice(0, 19),
        property_type: types[i % 2]!,
        city: 'dar_es_salaam',
        neighbourhood: neighbourhoods[i % 3]!,
        // Repeated rents (one price row counts several listings) and odd ones.
        price_tzs: i % 4 === 0 ? 450_000 : 300_000 + i * 12_345.5,
      });
    }
    // Three inserts: each is its own block through the views.
    const ids = [
      ...(await insertListings(listings.slice(0, 16))),
      ...(await insertListings(listings.slice(16, 40))),
      ...(await insertListings(listings.slice(40))),
    ];
    const changes: ListingStatusChangeRow[] = [];
    ids.forEach((id, i) => {
      const listedAt = Date.parse(`${listings[i]!.listed_at.replace(' ', 'T')}Z`);
      let state: ListingState = {
        listing_id: id,
        account_id: account,
        is_test: false,
        external_id: '',
        listed_at: listedAt,
        property_type: listings[i]!.property_type as PropertyType,
        city: 'dar_es_salaam',
        neighbourhood: listings[i]!.neighbourhood,
        status: 'active',
        status_at: listedAt,
        spell_started_at: listedAt,
        exited_at: 0,
        exit_days: 0,
        updated_at: listedAt,
        version: 0,
      };
      for (const [status, days] of timelines[i % timelines.length]!) {
        const at = listedAt + days * DAY_MS + 3_600_000;
        const change = { status, at, recordedAt: at, source: 'api' as const };
        const applied = applyChange(state, change);
        if (applied.kind !== 'changed') throw new Error(`timeline ${i % timelines.length} is not a change`);
        changes.push(
          changeRow(state, applied.effect, applied.state, change, {
            _topic: 'cascade-test',
            _partition: 0,
            _offset: String(changes.length),
            _item: 0,
          }),
        );
        state = applied.state;
      }
    });
    // Later changes of a listing in later inserts, as the processor applies them in order.
    const byVersion = (v: number) => changes.filter((c) => c.version === v);
    for (const version of [1, 2, 3])
      await insertRows(testClickHouse(), listingStatusChangesTable, byVersion(version));
  });

  afterAll(async () => {
    await testClickHouse().command({
      query: 'ALTER TABLE account_area_stock DELETE WHERE account_id = {account:String}',
      query_params: { account },
      clickhouse_settings: { mutations_sync: '2' },
    });
  });

  it('happy: neighbourhood_quarter_stats: listings and price sums as counted over listings', async () => {
    const params = { from: from(), to: to(), account };
    const stored = await rows(
      `SELECT quarter, toString(property_type) AS type, city, neighbourhood, sum(listings) AS n,
              round(sum(price_tzs_sum), 2) AS price_sum
       FROM neighbourhood_quarter_stats
       WHERE is_test = 0 AND quarter >= {from:Date} AND quarter < {to:Date}
       GROUP BY quarter, type, city, neighbourhood HAVING n > 0
       ORDER BY quarter, type, city, neighbourhood`,
      params,
    );
    const direct = await rows(
      `SELECT toStartOfQuarter(listed_at) AS quarter, toString(property_type) AS type, city, neighbourhood,
              count() AS n, round(sum(price_tzs), 2) AS price_sum
       FROM listings
       WHERE is_test = 0 AND listed_at >= {from:Date} AND listed_at < {to:Date}
       GROUP BY quarter, type, city, neighbourhood
       ORDER BY quarter, type, city, neighbourhood`,
      params,
    );
    expect(direct.length).toBeGreaterThan(6);
    expect(stored).toEqual(direct);
  });

  it('happy: account_area_stock: the listings whose latest status is on the market', async () => {
    const stored = await rows(
      `SELECT toString(property_type) AS type, neighbourhood, sum(listings) AS n
       FROM account_area_stock WHERE account_id = {account:String}
       GROUP BY type, neighbourhood HAVING n != 0 ORDER BY type, neighbourhood`,
      { account },
    );
    const direct = await rows(
      `SELECT toString(property_type) AS type, neighbourhood, count() AS n
       FROM listings
       WHERE account_id = {account:String} AND listing_id NOT IN (
         SELECT listing_id FROM listing_status_changes WHERE account_id = {account:String}
         GROUP BY listing_id HAVING argMax(status, version) IN ('rented', 'withdrawn', 'expired'))
       GROUP BY type, neighbourhood ORDER BY type, neighbourhood`,
      { account },
    );
    expect(direct.length).toBe(6);
    expect(stored).toEqual(direct);
  });

  it('happy: market_cohort_days: every spell by start month, open by start day, closed by reason and days', async () => {
    const params = { from: from(), to: to(), account };
    const stored = await rows(
      `SELECT month, toString(property_type) AS type, neighbourhood, toString(outcome) AS outcome, days,
              open_since, sum(listings) AS n
       FROM market_cohort_days
       WHERE is_test = 0 AND city = 'dar_es_salaam' AND month >= {from:Date} AND month < {to:Date}
       GROUP BY month, type, neighbourhood, outcome, days, open_since HAVING n != 0
       ORDER BY month, type, neighbourhood, outcome, days, open_since`,
      params,
    );
    // A spell is a listing's listed_at or a relist; the last change carrying that spell start says
    // how it stands (a listing without changes is one open spell).
    const direct = await rows(
      `SELECT toStartOfMonth(spell) AS month, type, neighbourhood,
              if(on_market, 'open', last_status) AS outcome, if(on_market, 0, last_days) AS days,
              if(on_market, toDate(spell), toDate(0)) AS open_since, count() AS n
       FROM (
         SELECT listing_id, spell, any(type) AS type, any(neighbourhood) AS neighbourhood,
                argMax(status, version) AS last_status, argMax(exit_days, version) AS last_days,
                last_status IN ('active', 'under_contract') AS on_market
         FROM (
           SELECT listing_id, listed_at AS spell, toString(property_type) AS type, neighbourhood,
                  'active' AS status, toUInt32(0) AS exit_days, toUInt32(0) AS version
           FROM listings WHERE account_id = {account:String}
           UNION ALL
           SELECT listing_id, spell_started_at AS spell, toString(property_type) AS type, neighbourhood,
                  toString(status) AS status, exit_days, version
           FROM listing_status_changes WHERE account_id = {account:String}
         )
         GROUP BY listing_id, spell
       )
       GROUP BY month, type, neighbourhood, outcome, days, open_since
       ORDER BY month, type, neighbourhood, outcome, days, open_since`,
      params,
    );
    expect(direct.some((r) => (r as { outcome: string }).outcome === 'open')).toBe(true);
    expect(direct.some((r) => (r as { outcome: string }).outcome === 'rented')).toBe(true);
    expect(stored).toEqual(direct);
  });
});
