// Market-wide listings and views of one mode and period (optionally one property type), across all
// cities: the denominator of every demand score. Reads the small neighbourhood_quarter_stats aggregate.
import { z } from 'zod';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, flag, isoDate } from '../../common/warehouse/query.ts';
import { neighbourhoodQuarterStatsTable } from '../../common/warehouse/aggregates.ts';

export const marketTotals = defineQuery({
  name: 'market.totals',
  compressResponse: false,
  params: z.object({
    isTest: z.boolean(),
    quarterStart: isoDate,
    type: z.enum(propertyTypes).optional(),
  }),
  row: z.object({ listings: count, views: count }),
  queryParams: (p) => ({ isTest: flag(p.isTest), quarterStart: p.quarterStart, type: p.type ?? null }),
  // Without a type (NULL): every known type. Either way the key still prunes on property_type.
  sql: `
    SELECT sum(listings) AS listings, sum(views) AS views
    FROM ${neighbourhoodQuarterStatsTable.name}
    WHERE is_test = {isTest:UInt8}
      AND quarter = {quarterStart:Date}
      AND ((isNull({type:Nullable(String)}) AND property_type != 'unknown')
        OR property_type = {type:Nullable(String)})`,
});
