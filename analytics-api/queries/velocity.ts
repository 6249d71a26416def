// SQL of the velocity endpoint (docs/analytics.md, "Velocity"), four statements the service runs in
// parallel, each over one city and type of small aggregates (migrations 0052, 0053):
// - stock from market_daily_flows: listings on the market before the period, the net change and
//   the day-weighted net change in it (→ average daily stock), and the period's market entries;
// - exits from market_exit_days: (neighbourhood, reason, days on market) → listings;
// - the period's cohort from market_cohort_days: (neighbourhood, rented?, days observed) → listings,
//   open spells observed until `asOf`;
// - who is behind each figure, from account_quarter_flows and account_area_stock (velocityBehind).
// Counts are signed (an undone exit is a -1 in another part until merged): every statement sums
// per key first and drops keys that net to zero. Days statistics are computed in the service.
import { z } from 'zod';
import {
  accountAreaStockTable,
  accountQuarterFlowsTable,
  marketCohortDaysTable,
  marketDailyFlowsTable,
  marketExitDaysTable,
} from '../../common/warehouse/market-flows.ts';
import { behindColumnsOf, int, marketScope, marketScopeParams, marketScopeWhere } from './market-scope.ts';
import { defineQuery, isoDate } from '../../common/warehouse/query.ts';
import { behindSelects } from '../suppression.ts';

/** Per neighbourhood (and, as totals, the city): stock before the period and its flows in it. */
export const velocityStock = defineQuery({
  name: 'velocity.stock',
  params: z.object({ ...marketScope, start: isoDate, last: isoDate }),
  row: z.object({
    neighbourhood: z.string(),
    active_before: int,
    net: int,
    weighted_net: int,
    entered: int,
  }),
  totals: true,
  queryParams: (p) => ({ ...marketScopeParams(p), start: p.start, last: p.last }),
  // weighted_net: each day's net change counts once for every day of the period it is on the
  // market (its own day included), so average stock = active_before + weighted_net / days.
  sql: `
    SELECT
      neighbourhood,
      sumIf(entries - exits, day < {start:Date}) AS active_before,
      sumIf(entries - exits, day >= {start:Date}) AS net,
      sumIf((entries - exits) * (dateDiff('day', day, {last:Date}) + 1), day >= {start:Date}) AS weighted_net,
      sumIf(entries, day >= {start:Date}) AS entered
    FROM ${marketDailyFlowsTable.name}
    WHERE ${marketScopeWhere} AND day <= {last:Date}
    GROUP BY neighbourhood WITH TOTALS`,
});

/** [neighbourhood, outcome, days on market, listings] of the exits in [start, end). */
export const velocityExits = defineQuery({
  name: 'velocity.exits',
  compact: true,
  params: z.object({ ...marketScope, start: isoDate, end: isoDate }),
  row: z.tuple([z.string(), z.enum(['rented', 'withdrawn', 'expired']), int, int]),
  queryParams: (p) => ({ ...marketScopeParams(p), start: p.start, end: p.end }),
  sql: `
    SELECT neighbourhood, toString(outcome) AS outcome, days, sum(listings) AS n
    FROM ${marketExitDaysTable.name}
    WHERE ${marketScopeWhere} AND month >= {start:Date} AND month < {end:Date}
    GROUP BY neighbourhood, outcome, days
    HAVING n > 0`,
});

/** [neighbourhood, rented 0/1, days observed, listings] of the spells started in [start, end). */
export const velocityCohort = defineQuery({
  name: 'velocity.cohort',
  compact: true,
  params: z.object({ ...marketScope, start: isoDate, end: isoDate, asOf: isoDate }),
  row: z.tuple([z.string(), int, int, int]),
  queryParams: (p) => ({ ...marketScopeParams(p), start: p.start, end: p.end, asOf: p.asOf }),
  sql: `
    SELECT neighbourhood, event, observed, sum(n) AS listings
    FROM (
      SELECT neighbourhood, toUInt8(outcome = 'rented') AS event,
        if(outcome = 'open', toUInt32(greatest(0, dateDiff('day', open_since, {asOf:Date}))), days) AS observed,
        sum(listings) AS n
      FROM ${marketCohortDaysTable.name}
      WHERE ${marketScopeWhere} AND month >= {start:Date} AND month < {end:Date}
      GROUP BY neighbourhood, outcome, days, open_since
      HAVING n > 0
    )
    GROUP BY neighbourhood, event, observed`,
});

/** The figures whose accounts velocityBehind counts (../suppression.ts). */
export const velocityMetrics = ['active', 'new_listings', 'rented', 'unrented', 'present'] as const;
export type VelocityMetric = (typeof velocityMetrics)[number];

/** The inner query's column of each metric. */
const inner: Record<VelocityMetric, string> = {
  active: 'stock',
  new_listings: 'entered',
  rented: 'rentals',
  unrented: 'others_exits',
  present: 'stock + exited',
};

/**
 * Who is behind each figure of each area, for the suppression rules (../suppression.ts): per
 * neighbourhood and, as is_city = 1, the city, the calling account's value, all accounts', how many
 * other accounts have one and the largest of them, for the stock at the end of the quarter (active),
 * its entries (new_listings), rentals, other exits (withdrawn and expired) and the listings on the
 * market at some time in it (stock at its end + its exits: average_active). The same sources and
 * sums as market share (0052, 0053), so both endpoints withhold the same figures; no other
 * account's id leaves ClickHouse.
 */
export const velocityBehind = defineQuery({
  name: 'velocity.behind',
  params: z.object({ ...marketScope, quarter: isoDate, account: z.string().min(1) }),
  row: z.object({ is_city: int, neighbourhood: z.string(), ...behindColumnsOf(velocityMetrics) }),
  queryParams: (p) => ({ ...marketScopeParams(p), quarter: p.quarter, account: p.account }),
  sql: `
    SELECT is_city, neighbourhood, ${velocityMetrics.map((m) => behindSelects(m, inner[m])).join(',')}
    FROM (
      SELECT grouping(neighbourhood) AS is_city, neighbourhood, account,
             sum(s) AS stock, sum(e) AS entered, sum(r) AS rentals, sum(x) AS exited,
             sum(x) - sum(r) AS others_exits
      FROM (
        SELECT neighbourhood, cityHash64(account_id) AS account, listings AS s,
               toInt64(0) AS e, toInt64(0) AS r, toInt64(0) AS x
        FROM ${accountAreaStockTable.name}
        WHERE ${marketScopeWhere}
        UNION ALL
        SELECT neighbourhood, cityHash64(account_id) AS account,
               if(quarter > {quarter:Date}, exits - entries, 0) AS s,
               if(quarter = {quarter:Date}, entries, 0) AS e,
               if(quarter = {quarter:Date}, rented, 0) AS r,
               if(quarter = {quarter:Date}, exits, 0) AS x
        FROM ${accountQuarterFlowsTable.name}
        WHERE ${marketScopeWhere} AND quarter >= {quarter:Date}
      )
      GROUP BY GROUPING SETS ((neighbourhood, account), (account))
    )
    GROUP BY is_city, neighbourhood`,
});
