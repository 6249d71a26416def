// Market share (docs/analytics.md, "Market share"): the calling account's active listings, new
// listings, rentals and views against the rest of the market, for the city and each neighbourhood.
// Competitors are never named or ranked, and a market figure that could reveal one is suppressed,
// directly or by subtraction from the city's (../suppression.ts); the account's own counts always show.
import type { ClickHouseClient } from '@clickhouse/client';
import type { MarketShareAnswer, ShareFigures } from '../answers/market.ts';
import { cities } from '../../common/domain/cities.ts';
import { shareFigure } from '../market-rules.ts';
import { behindOf, decideAreas, type AreaDecisions } from '../suppression.ts';
import type { MarketParams } from '../params.ts';
import { periodLabel, quarterStart } from '../period.ts';
import { accountShares, shareMetrics, type ShareMetric } from '../queries/market-share.ts';

type AreaRow = Awaited<ReturnType<typeof accountShares.run>>['rows'][number];

export async function marketShareAnswer(
  clickhouse: ClickHouseClient,
  params: MarketParams,
  isTest: boolean,
  accountId: string,
): Promise<MarketShareAnswer> {
  const { rows } = await accountShares.run(clickhouse, {
    isTest,
    city: params.city,
    type: params.type,
    quarter: quarterStart(params.period),
    account: accountId,
  });
  const cityRow = rows.find((r) => r.is_city === 1);
  const decisions = decideAreas(rows, shareMetrics);
  const hasAny = (r: AreaRow) =>
    Number(r.market_active) +
      Number(r.market_new_listings) +
      Number(r.market_rented) +
      Number(r.market_views) >
    0;
  return {
    city: cities[params.city],
    property_type: params.type,
    period: periodLabel(params.period),
    summary: figures(cityRow, decisions, null),
    // Listings without a neighbourhood count in the summary only.
    by_neighborhood: rows
      .filter((r) => r.is_city === 0 && r.neighbourhood !== '' && hasAny(r))
      .map((r) => ({ name: r.neighbourhood, ...figures(r, decisions, r.neighbourhood) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** An area's figures; `neighbourhood` null for the city. */
function figures(
  row: AreaRow | undefined,
  decisions: AreaDecisions<ShareMetric>,
  neighbourhood: string | null,
): ShareFigures {
  const metric = (m: ShareMetric) =>
    shareFigure(
      behindOf(row, m),
      neighbourhood === null ? decisions[m].totalShown : decisions[m].shownParts.has(neighbourhood),
    );
  const active = metric('active');
  const fresh = metric('new_listings');
  const rented = metric('rented');
  const views = metric('views');
  return {
    own_listings: active.own,
    market_listings: active.market,
    share: active.share,
    suppressed: active.suppressed,
    own_new_listings: fresh.own,
    market_new_listings: fresh.market,
    new_listings_share: fresh.share,
    new_listings_suppressed: fresh.suppressed,
    own_rented: rented.own,
    market_rented: rented.market,
    rented_share: rented.share,
    rented_suppressed: rented.suppressed,
    own_views: views.own,
    market_views: views.market,
    views_share: views.share,
    views_suppressed: views.suppressed,
  };
}
