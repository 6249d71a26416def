// neighbourhood_quarter_price_summaries (migration 0120): the pricing answer's price figures prepared
// per group (mode, city, property type, quarter) from neighbourhood_quarter_prices, so that an
// answer reads a few dozen rows instead of aggregating every distinct price of its city at request
// time. The stream worker's price-summaries job writes them (stream/jobs/price-summaries.ts); the
// pricing read uses a group's rows only while their count equals the group's stored count
// (analytics-api/services/pricing.ts), so a group written since its summary is read exactly.
import { TupleParam, type ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import {
  exactMedian,
  neighbourhoodQuarterPricesTable,
  neighbourhoodQuarterStatsTable,
} from './aggregates.ts';
import { count, defineQuery } from './query.ts';
import { defineTable, type DateTimeText } from './table.ts';

export type NeighbourhoodQuarterPriceSummaryRow = {
  is_test: 0 | 1;
  city: string;
  property_type: string;
  quarter: string;
  /** 1: the city's row (every neighbourhood, '' included), neighbourhood ''. */
  city_wide: 0 | 1;
  neighbourhood: string;
  listings: number;
  median_price_tzs: number;
  avg_price_tzs: number;
  min_price_tzs: number;
  max_price_tzs: number;
  prepared_at: DateTimeText;
};
export const neighbourhoodQuarterPriceSummariesTable = defineTable<NeighbourhoodQuarterPriceSummaryRow>()(
  'neighbourhood_quarter_price_summaries',
  [
    'is_test',
    'city',
    'property_type',
    'quarter',
    'city_wide',
    'neighbourhood',
    'listings',
    'median_price_tzs',
    'avg_price_tzs',
    'min_price_tzs',
    'max_price_tzs',
    'prepared_at',
  ],
);

/** One pricing group whose summary is missing or counts other listings than are stored now. */
const priceGroupRow = z.object({
  is_test: z.union([z.literal(0), z.literal(1)]),
  city: z.string(),
  property_type: z.string(),
  /** YYYY-MM-DD, the quarter's first day. */
  quarter: z.string(),
  /** Listings of the group stored now (neighbourhood_quarter_stats). */
  stored: count,
});
export type PriceGroup = z.output<typeof priceGroupRow>;

/**
 * Groups whose latest city-wide summary row counts other listings than the group's stored count
 * (or that have none). Both sides are small: neighbourhood_quarter_stats has a row per
 * neighbourhood, quarter and type, the summaries a row per group.
 */
export const stalePriceGroups = defineQuery({
  name: 'price-summaries.stale',
  params: z.object({}),
  row: priceGroupRow,
  maxSeconds: 30,
  sql: `
    SELECT s.is_test AS is_test, s.city AS city, s.type AS property_type, toString(s.quarter) AS quarter,
           s.stored AS stored
    FROM (
      SELECT is_test, city, toString(property_type) AS type, quarter, sum(listings) AS stored
      FROM ${neighbourhoodQuarterStatsTable.name}
      WHERE property_type != 'unknown'
      GROUP BY is_test, city, type, quarter
      HAVING stored > 0
    ) AS s
    LEFT JOIN (
      SELECT is_test, city, toString(property_type) AS type, quarter,
             argMax(listings, prepared_at) AS prepared
      FROM ${neighbourhoodQuarterPriceSummariesTable.name}
      WHERE city_wide = 1
      GROUP BY is_test, city, type, quarter
    ) AS p ON s.is_test = p.is_test AND s.city = p.city AND s.type = p.type AND s.quarter = p.quarter
    WHERE s.stored != p.prepared
    ORDER BY is_test, city, property_type, quarter`,
});

/** Groups per statement: each is a tuple of the IN list sent as one query parameter. */
const GROUPS_PER_STATEMENT = 200;

/**
 * Writes the summary rows of `groups` again from neighbourhood_quarter_prices (one scan of each
 * group's key range): per neighbourhood and city-wide, with the same exact median, average and
 * extremes as the pricing statement over prices computes, and the count they come from.
 */
export async function preparePriceSummaries(
  clickhouse: ClickHouseClient,
  groups: readonly Omit<PriceGroup, 'stored'>[],
): Promise<void> {
  for (let i = 0; i < groups.length; i += GROUPS_PER_STATEMENT) {
    const chunk = groups.slice(i, i + GROUPS_PER_STATEMENT);
    await clickhouse.command({
      query: prepareSql,
      query_params: {
        groups: chunk.map((g) => new TupleParam([g.is_test, g.city, g.property_type, g.quarter])),
      },
      clickhouse_settings: { max_execution_time: 60 },
    });
  }
}

const prepareSql = `/* price-summaries.prepare */
  INSERT INTO ${neighbourhoodQuarterPriceSummariesTable.name}
    (${neighbourhoodQuarterPriceSummariesTable.columns.join(', ')})
  SELECT
    is_test, city, property_type, quarter,
    grouping(neighbourhood) AS city_wide,
    neighbourhood,
    sum(n),
    ${exactMedian},
    sum(price_tzs * n) / sum(n),
    min(price_tzs),
    max(price_tzs),
    now64(3)
  FROM (
    SELECT is_test, city, property_type, quarter, neighbourhood, price_tzs, listings AS n
    FROM ${neighbourhoodQuarterPricesTable.name}
    WHERE (is_test, city, property_type, quarter) IN {groups:Array(Tuple(UInt8, String, String, Date))}
  )
  GROUP BY GROUPING SETS ((is_test, city, property_type, quarter, neighbourhood), (is_test, city, property_type, quarter))`;
