// SQL of the seasonality endpoint (docs/analytics.md, "Seasonality"), four statements over one city
// and type (migrations 0052, 0053, 0130), run in parallel:
// - asking rents of the months' new listings from city_month_prices: exact medians per bedroom
//   class and month, and per month over all classes (grouping sets);
// - market_daily_flows per day up to the window's last day (all history: the stock on a day is the
//   sum of every earlier day's entries − exits), for new listings, views and average stock;
// - rentals per month and days on market from market_exit_days (medians computed in the service);
// - who is behind each month's figures, from account_month_flows and account_area_stock.
import { z } from 'zod';
import {
  accountAreaStockTable,
  accountMonthFlowsTable,
  cityMonthPricesTable,
  marketDailyFlowsTable,
  marketExitDaysTable,
} from '../../common/warehouse/market-flows.ts';
import { behindColumnsOf, int, marketScope, marketScopeParams, marketScopeWhere } from './market-scope.ts';
import { behindSelects } from '../suppression.ts';
import { exactMedian } from '../../common/warehouse/aggregates.ts';
import { defineQuery, isoDate, nullableNumber } from '../../common/warehouse/query.ts';

/** Rows with all_classes = 1 are the month over every bedroom class (bedrooms is then 0). */
export const monthlyRents = defineQuery({
  name: 'seasonality.rents',
  params: z.object({ ...marketScope, from: isoDate, to: isoDate }),
  row: z.object({
    month: isoDate,
    bedrooms: int,
    all_classes: int,
    listings: int,
    median_price: nullableNumber,
  }),
  queryParams: (p) => ({ ...marketScopeParams(p), from: p.from, to: p.to }),
  sql: `
    SELECT toString(month) AS month, bedrooms, grouping(bedrooms) AS all_classes, sum(n) AS listings,
           ${exactMedian} AS median_price
    FROM (
      SELECT month, bedrooms, price_tzs, listings AS n
      FROM ${cityMonthPricesTable.name}
      WHERE ${marketScopeWhere} AND month >= {from:Date} AND month <= {to:Date}
    )
    GROUP BY GROUPING SETS ((month, bedrooms), (month))`,
});

/** [day, entries − exits, entries, views] for every day with a flow, up to `last`, oldest first. */
export const dailyFlows = defineQuery({
  name: 'seasonality.daily_flows',
  compact: true,
  params: z.object({ ...marketScope, last: isoDate }),
  row: z.tuple([isoDate, int, int, int]),
  queryParams: (p) => ({ ...marketScopeParams(p), last: p.last }),
  sql: `
    SELECT toString(day) AS d, sum(entries - exits) AS net, sum(entries) AS entered, sum(views) AS viewed
    FROM ${marketDailyFlowsTable.name}
    WHERE ${marketScopeWhere} AND day <= {last:Date}
    GROUP BY day
    ORDER BY day`,
});

/** [month, days on market, rentals] of the window's rentals. */
export const monthlyRentals = defineQuery({
  name: 'seasonality.rentals',
  compact: true,
  params: z.object({ ...marketScope, from: isoDate, to: isoDate }),
  row: z.tuple([isoDate, int, int]),
  queryParams: (p) => ({ ...marketScopeParams(p), from: p.from, to: p.to }),
  sql: `
    SELECT toString(month) AS m, days, sum(listings) AS n
    FROM ${marketExitDaysTable.name}
    WHERE ${marketScopeWhere} AND month >= {from:Date} AND month <= {to:Date} AND outcome = 'rented'
    GROUP BY month, days
    HAVING n > 0`,
});

/** The figures whose accounts monthlyBehind counts (../suppression.ts). */
export const seasonalityMetrics = ['listed', 'new_listings', 'views', 'present', 'rented'] as const;
export type SeasonalityMetric = (typeof seasonalityMetrics)[number];

/** Per account: its arrays of each metric over {months:Array(Date)}, ARRAY JOINed below. */
const inner: Record<SeasonalityMetric, string> = {
  listed: 'listed',
  new_listings: 'entered',
  views: 'viewed',
  rented: 'rentals',
  present: 'present',
};

/**
 * Who is behind each month's figures (the suppression rules, ../suppression.ts), for every month of
 * `months` (whole quarters): the calling account's value, all accounts', how many other accounts
 * have one and the largest of them, for the listings listed (listed, the rents), market entries,
 * views, rentals and the listings on the market at some time in the month (stock at its end + its
 * exits: average_active). Stock at the end of month M = stock now − the net flow of the months
 * after it, from each account's flows summed into one array per figure. No other account's id
 * leaves ClickHouse.
 */
export const monthlyBehind = defineQuery({
  name: 'seasonality.behind',
  params: z.object({
    ...marketScope,
    account: z.string().min(1),
    /** Consecutive months (first days), oldest first. */
    months: z.array(isoDate).min(1),
  }),
  row: z.object({ month: isoDate, ...behindColumnsOf(seasonalityMetrics) }),
  queryParams: (p) => ({
    ...marketScopeParams(p),
    account: p.account,
    months: p.months,
    from: p.months[0],
    last: p.months[p.months.length - 1],
  }),
  sql: `
    SELECT toString(m) AS month, ${seasonalityMetrics.map((k) => behindSelects(k, inner[k])).join(',')}
    FROM (
      SELECT account,
             sumForEach(nets_row) AS nets, sumForEach(exits_row) AS exits_m,
             sumForEach(listed_row) AS listeds, sumForEach(entered_row) AS entereds,
             sumForEach(viewed_row) AS vieweds, sumForEach(rented_row) AS renteds,
             sum(stock) - sumIf(net, fm > {last:Date}) AS stock_last
      FROM (
        SELECT account, fm, stock, net,
               arrayMap(x -> if(x = fm, net, 0), {months:Array(Date)}) AS nets_row,
               arrayMap(x -> if(x = fm, ex, 0), {months:Array(Date)}) AS exits_row,
               arrayMap(x -> if(x = fm, li, 0), {months:Array(Date)}) AS listed_row,
               arrayMap(x -> if(x = fm, en, 0), {months:Array(Date)}) AS entered_row,
               arrayMap(x -> if(x = fm, vi, 0), {months:Array(Date)}) AS viewed_row,
               arrayMap(x -> if(x = fm, re, 0), {months:Array(Date)}) AS rented_row
        FROM (
          SELECT cityHash64(account_id) AS account, toDate(0) AS fm, listings AS stock, toInt64(0) AS net,
                 toInt64(0) AS ex, toInt64(0) AS li, toInt64(0) AS en, toInt64(0) AS vi, toInt64(0) AS re
          FROM ${accountAreaStockTable.name}
          WHERE ${marketScopeWhere}
          UNION ALL
          SELECT cityHash64(account_id) AS account, month AS fm, toInt64(0) AS stock, entries - exits AS net,
                 exits AS ex, listed AS li, entries AS en, views AS vi, rented AS re
          FROM ${accountMonthFlowsTable.name}
          WHERE ${marketScopeWhere} AND month >= {from:Date}
        )
      )
      GROUP BY account
    )
    ARRAY JOIN
      {months:Array(Date)} AS m,
      listeds AS listed,
      entereds AS entered,
      vieweds AS viewed,
      renteds AS rentals,
      arrayMap((c, x) -> stock_last - (arraySum(nets) - c) + x, arrayCumSum(nets), exits_m) AS present
    GROUP BY m
    ORDER BY m`,
});
