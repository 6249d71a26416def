// Pricing by neighbourhood (spec §2.4): exact price statistics of the period, demand scores from
// views, and the trend against the previous quarter. Rules: ../rules.ts and docs/analytics.md.
import type { ClickHouseClient } from '@clickhouse/client';
import { cities } from '../../common/domain/cities.ts';
import type { PricingAnswer } from '../answers/pricing.ts';
import type { PricingParams } from '../params.ts';
import { periodLabel, previousQuarter, quarterStart } from '../period.ts';
import { pricingStatement, type PricingRow } from '../queries/pricing.ts';
import { demandScore, round2, round3, trendOf } from '../rules.ts';

export async function pricingAnswer(
  clickhouse: ClickHouseClient,
  params: PricingParams,
  isTest: boolean,
): Promise<PricingAnswer> {
  const { rows } = await pricingStatement.run(clickhouse, {
    isTest,
    city: params.city,
    type: params.type,
    quarterStart: quarterStart(params.period),
    previousStart: quarterStart(previousQuarter(params.period)),
  });
  const part = (name: PricingRow['part']) => rows.filter((row) => row.part === name);
  const previousBy = new Map(part('previous').map((row) => [row.neighbourhood, row]));
  const viewsBy = new Map(part('views').map((row) => [row.neighbourhood, row.views]));
  const marketRow = part('market')[0] ?? { listings: 0, views: 0 };
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
        demandScore({ views: viewsBy.get(row.neighbourhood) ?? 0, listings: row.listings }, marketRow),
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
