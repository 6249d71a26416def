// The market aggregates of the lifecycle endpoints (migrations 0052, 0053, 0130): SummingMergeTree tables with
// signed counts, kept by materialized views from listings, listing_status_changes and view_events.
// Nothing inserts into them but the views; readers sum() and GROUP BY (docs/analytics.md).
import { defineTable } from './table.ts';

interface MarketKey {
  is_test: 0 | 1;
  city: string;
  property_type: string;
}

/** Every market table leads with the market it counts: mode, city and property type. */
const marketKeyColumns = ['is_test', 'city', 'property_type'] as const satisfies readonly (keyof MarketKey)[];

export interface MarketDailyFlowsRow extends MarketKey {
  day: string;
  neighbourhood: string;
  entries: number;
  exits: number;
  views: number;
}
export const marketDailyFlowsTable = defineTable<MarketDailyFlowsRow>()('market_daily_flows', [
  ...marketKeyColumns,
  'day',
  'neighbourhood',
  'entries',
  'exits',
  'views',
]);

export interface MarketExitDaysRow extends MarketKey {
  month: string;
  neighbourhood: string;
  outcome: 'rented' | 'withdrawn' | 'expired';
  days: number;
  listings: number;
}
export const marketExitDaysTable = defineTable<MarketExitDaysRow>()('market_exit_days', [
  ...marketKeyColumns,
  'month',
  'neighbourhood',
  'outcome',
  'days',
  'listings',
]);

export interface MarketCohortDaysRow extends MarketKey {
  month: string;
  neighbourhood: string;
  outcome: 'open' | 'rented' | 'withdrawn' | 'expired';
  days: number;
  open_since: string;
  listings: number;
}
export const marketCohortDaysTable = defineTable<MarketCohortDaysRow>()('market_cohort_days', [
  ...marketKeyColumns,
  'month',
  'neighbourhood',
  'outcome',
  'days',
  'open_since',
  'listings',
]);

export interface AccountQuarterFlowsRow extends MarketKey {
  quarter: string;
  neighbourhood: string;
  account_id: string;
  entries: number;
  exits: number;
  rented: number;
  views: number;
}
export const accountQuarterFlowsTable = defineTable<AccountQuarterFlowsRow>()('account_quarter_flows', [
  ...marketKeyColumns,
  'quarter',
  'neighbourhood',
  'account_id',
  'entries',
  'exits',
  'rented',
  'views',
]);

export interface AccountAreaStockRow extends MarketKey {
  neighbourhood: string;
  account_id: string;
  listings: number;
}
/** Listings on the market now per neighbourhood and owner (migration 0053). */
export const accountAreaStockTable = defineTable<AccountAreaStockRow>()('account_area_stock', [
  ...marketKeyColumns,
  'neighbourhood',
  'account_id',
  'listings',
]);

export interface AccountMonthFlowsRow extends MarketKey {
  month: string;
  account_id: string;
  listed: number;
  entries: number;
  exits: number;
  rented: number;
  views: number;
}
/** Per month and listing owner over a city and type (migration 0130): seasonality's suppression. */
export const accountMonthFlowsTable = defineTable<AccountMonthFlowsRow>()('account_month_flows', [
  ...marketKeyColumns,
  'month',
  'account_id',
  'listed',
  'entries',
  'exits',
  'rented',
  'views',
]);

export interface CityMonthPricesRow extends MarketKey {
  month: string;
  bedrooms: number;
  price_tzs: number;
  listings: number;
}
export const cityMonthPricesTable = defineTable<CityMonthPricesRow>()('city_month_prices', [
  ...marketKeyColumns,
  'month',
  'bedrooms',
  'price_tzs',
  'listings',
]);
