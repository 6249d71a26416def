// SQL of the seasonality endpoint (docs/analytics.md, "Seasonality"), three statements over one city
// and type (migration 0052), run in parallel:
// - asking rents of the months' new listings from city_month_prices: exact medians per bedroom
//   class and month, and per month over all classes (grouping sets);
// - market_daily_flows per day up to the window's last day (all history: the stock on a day is the
//   sum of every earlier day's entries − exits), for new listings, views and average stock;
// - rentals per month and days on market from market_exit_days (medians computed in the service).
import { z } from 'zod';
import {
  cityMonthPricesTable,
  marketDailyFlowsTable,
  marketExitDaysTable,
} from '../../common/warehouse/market-flows.ts';
import { int, marketScope, marketScopeParams, marketScopeWhere } from './market-scope.ts';
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
