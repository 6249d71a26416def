// Demand heatmap on the H3 resolution-8 grid (≈ 0.74 km² hexagons, ≈ 500 m across; spec §2.5):
// one cell per grid cell with listings of the period whose centre lies inside the bounds.
import type { ClickHouseClient } from '@clickhouse/client';
import type { HeatmapAnswer, HeatmapCell } from '../answers/heatmap.ts';
import { contains } from '../geo/bounds.ts';
import type { CellFacts } from '../geo/cell-facts.ts';
import { parentsForBounds } from '../geo/h3-ranges.ts';
import type { HeatmapParams } from '../params.ts';
import { quarterStart } from '../period.ts';
import { cellStats } from '../queries/heatmap.ts';
import { marketTotals } from '../queries/market.ts';
import { demandScore, round2, round3, viewsPerListing } from '../rules.ts';

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export interface HeatmapDeps {
  clickhouse: ClickHouseClient;
  /** This process's memory of each cell's hex id and centre. */
  cells: CellFacts;
}

export async function heatmapAnswer(
  deps: HeatmapDeps,
  params: HeatmapParams,
  isTest: boolean,
): Promise<HeatmapAnswer> {
  const { clickhouse } = deps;
  const quarter = quarterStart(params.period);
  const covering = parentsForBounds(params.bounds);
  const [cells, market] = await Promise.all([
    cellStats.run(clickhouse, {
      isTest,
      quarterStart: quarter,
      type: params.type,
      parentResolution: covering.resolution,
      parents: covering.parents.map((parent) => BigInt(`0x${parent}`)),
    }),
    marketTotals.run(clickhouse, { isTest, quarterStart: quarter, type: params.type }),
  ]);
  const marketRow = market.rows[0] ?? { listings: 0, views: 0 };
  const out: HeatmapCell[] = [];
  for (const [high, low, listings, priceSum, views] of cells.rows) {
    const { h3, lat, lng } = deps.cells.of(high, low);
    if (!contains(params.bounds, lat, lng)) continue; // the ranges over-cover the box; keep centres inside
    const cell = { views, listings };
    out.push({
      h3_index: h3,
      lat: round6(lat),
      lng: round6(lng),
      demand_score: round3(demandScore(cell, marketRow)),
      avg_price: round2(priceSum / listings),
      listing_count: listings,
      views_per_listing: round3(viewsPerListing(views, listings)),
    });
  }
  return { grid_size: '500m', cells: out };
}
