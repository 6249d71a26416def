// SQL of the market-share endpoint (docs/analytics.md, "Market share"): one statement over one city
// and type of account_area_stock (0053) and account_quarter_flows (0052). The inner query sums each account's figures
// per neighbourhood and, as a second grouping set, over the whole city (is_city = 1); the outer one
// keeps per area only what the suppression rules (../suppression.ts) need: the calling account's value, the market
// total, how many other accounts have a non-zero value and the largest of them. No other account's
// id leaves ClickHouse.
import { z } from 'zod';
import { accountAreaStockTable, accountQuarterFlowsTable } from '../../common/warehouse/market-flows.ts';
import { defineQuery, isoDate } from '../../common/warehouse/query.ts';
import { behindSelects } from '../suppression.ts';
import { behindColumnsOf, int, marketScope, marketScopeParams, marketScopeWhere } from './market-scope.ts';

export const shareMetrics = ['active', 'new_listings', 'rented', 'views'] as const;
export type ShareMetric = (typeof shareMetrics)[number];

/** The inner query's column of each metric (named apart from the table's columns it sums). */
const inner: Record<ShareMetric, string> = {
  active: 'stock',
  new_listings: 'entered',
  rented: 'rentals',
  views: 'viewed',
};

/** The four figures of each metric, for the outer SELECT (constant SQL, no values). */
const metricSelects = shareMetrics.map((m) => behindSelects(m, inner[m])).join(',');

export const accountShares = defineQuery({
  name: 'market_share.accounts',
  params: z.object({
    ...marketScope,
    /** First day of the period's quarter. */
    quarter: isoDate,
    account: z.string().min(1),
  }),
  row: z.object({ is_city: int, neighbourhood: z.string(), ...behindColumnsOf(shareMetrics) }),
  queryParams: (p) => ({ ...marketScopeParams(p), quarter: p.quarter, account: p.account }),
  // Stock at the end of the quarter = stock now (account_area_stock) − the net flow of the quarters
  // after it; the other metrics are the quarter's own flows. Accounts are grouped by a 64-bit hash
  // of their id (cheaper to group than the string; the own account is matched by the same hash).
  sql: `
    SELECT is_city, neighbourhood, ${metricSelects}
    FROM (
      SELECT grouping(neighbourhood) AS is_city, neighbourhood, account,
             sum(s) AS stock, sum(e) AS entered, sum(r) AS rentals, sum(v) AS viewed
      FROM (
        SELECT neighbourhood, cityHash64(account_id) AS account, listings AS s,
               toInt64(0) AS e, toInt64(0) AS r, toInt64(0) AS v
        FROM ${accountAreaStockTable.name}
        WHERE ${marketScopeWhere}
        UNION ALL
        SELECT neighbourhood, cityHash64(account_id) AS account,
               if(quarter > {quarter:Date}, exits - entries, 0) AS s,
               if(quarter = {quarter:Date}, entries, 0) AS e,
               if(quarter = {quarter:Date}, rented, 0) AS r,
               if(quarter = {quarter:Date}, views, 0) AS v
        FROM ${accountQuarterFlowsTable.name}
        WHERE ${marketScopeWhere} AND quarter >= {quarter:Date}
      )
      GROUP BY GROUPING SETS ((neighbourhood, account), (account))
    )
    GROUP BY is_city, neighbourhood`,
});
