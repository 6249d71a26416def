// Pricing by neighbourhood (spec §2.4): exact price statistics of the period, demand scores from
// views, and the trend against the previous quarter. Rules: ../rules.ts and docs/analytics.md.
import type { ClickHouseClient } from '@clickhouse/client';
import { pricingReads } from '../../common/metrics/registry.ts';
import { cities } from '../../common/domain/cities.ts';
import type { PricingAnswer } from '../answers/pricing.ts';
import type { PricingParams } from '../params.ts';
import { periodLabel, previousQuarter, quarterStart } from '../period.ts';
import { pricingPricesStatement, pricingSummaryStatement, type PricingRow } from '../queries/pricing.ts';
import type { PricingLag } from './pricing-lag.ts';
import { demandScore, round2, round3, trendOf } from '../rules.ts';

type PricingScope = Parameters<typeof pricingSummaryStatement.run>[1];

/** The statements' scope of an answer: its mode, city, type, period and the quarter before. */
export function pricingScope(params: PricingParams, isTest: boolean): PricingScope {
  return {
    isTest,
    city: params.city,
    type: params.type,
    quarterStart: quarterStart(params.period),
    previousStart: quarterStart(previousQuarter(params.period)),
  };
}

/** Where an answer's price figures came from (the pricing_reads_total metric's label). */
export type PriceSource = 'summaries' | 'prices';

export interface PricingFigures {
  /** 'current' and 'total' rows of the period, 'previous' rows of the quarter before. */
  prices: PricingRow[];
  /** Views of each of the city's neighbourhoods (with a stats row) in the period. */
  views: Map<string, number>;
  /** Listings and views of the whole market of the type in the period. */
  market: { listings: number; views: number };
  source: PriceSource;
}

export interface PricingDeps {
  clickhouse: ClickHouseClient;
  /** This process's memory of scopes whose summaries lagged lately. */
  lag: PricingLag;
}

const sum = (rows: PricingRow[], key: 'listings' | 'views') => rows.reduce((n, row) => n + row[key], 0);

/**
 * The figures of one pricing answer: the prepared summaries when both quarters' summaries count
 * exactly the listings stored now (counts only grow, so the same count is the same listings), else
 * the price figures computed from every price. A scope whose summary lagged lately goes straight
 * to its prices (pricing-lag.ts).
 */
export async function pricingFigures(deps: PricingDeps, scope: PricingScope): Promise<PricingFigures> {
  const key = `${scope.isTest}/${scope.city}/${scope.type}/${scope.quarterStart}`;
  if (!deps.lag.has(key)) {
    const { rows } = await pricingSummaryStatement.run(deps.clickhouse, scope);
    const counted = (part: 'total' | 'previous_total') =>
      rows.find((row) => row.part === part)?.listings ?? 0;
    const stored = (part: 'views' | 'previous_listed') =>
      sum(
        rows.filter((row) => row.part === part),
        'listings',
      );
    if (counted('total') === stored('views') && counted('previous_total') === stored('previous_listed'))
      return figuresOf(rows, 'summaries');
    deps.lag.add(key);
  }
  return figuresOf((await pricingPricesStatement.run(deps.clickhouse, scope)).rows, 'prices');
}

const priceParts: ReadonlySet<PricingRow['part']> = new Set(['current', 'total', 'previous']);

function figuresOf(rows: PricingRow[], source: PriceSource): PricingFigures {
  pricingReads.inc({ source });
  const views = rows.filter((row) => row.part === 'views');
  const elsewhere = rows.filter((row) => row.part === 'elsewhere');
  return {
    prices: rows.filter((row) => priceParts.has(row.part)),
    views: new Map(views.map((row) => [row.neighbourhood, row.views])),
    market: {
      listings: sum(views, 'listings') + sum(elsewhere, 'listings'),
      views: sum(views, 'views') + sum(elsewhere, 'views'),
    },
    source,
  };
}

export async function pricingAnswer(
  deps: PricingDeps,
  params: PricingParams,
  isTest: boolean,
): Promise<PricingAnswer> {
  const figures = await pricingFigures(deps, pricingScope(params, isTest));
  const part = (name: PricingRow['part']) => figures.prices.filter((row) => row.part === name);
  const previousBy = new Map(part('previous').map((row) => [row.neighbourhood, row]));
  const totals = part('total')[0];
  const total = totals?.listings ?? 0;

  const byNeighbourhood = part('current')
    // Listings without a neighbourhood count in the summary only.
    .filter((row) => row.neighbourhood !== '' && row.listings > 0 && row.median_price !== null)
    .map((row) => ({
      name: row.neighbourhood,
      median_price: row.median_price as number,
      listing_count: row.listings,
      demand_score: round3(
        demandScore(
          { views: figures.views.get(row.neighbourhood) ?? 0, listings: row.listings },
          figures.market,
        ),
      ),
      trend: trendOf(
        { median: row.median_price as number, count: row.listings },
        {
          median: previousBy.get(row.neighbourhood)?.median_price ?? 0,
          count: previousBy.get(row.neighbourhood)?.listings ?? 0,
        },
      ),
    }))
    .sort((a, b) => b.listing_count - a.listing_count || a.name.localeCompare(b.name));

  return {
    city: cities[params.city],
    property_type: params.type,
    period: periodLabel(params.period),
    summary: {
      median_price_tzs: total > 0 ? (totals?.median_price ?? null) : null,
      avg_price_tzs: total > 0 && totals?.avg_price != null ? round2(totals.avg_price) : null,
      min_price_tzs: total > 0 ? (totals?.min_price ?? null) : null,
      max_price_tzs: total > 0 ? (totals?.max_price ?? null) : null,
      total_listings: total,
    },
    by_neighborhood: byNeighbourhood,
  };
}
