// Market-wide listings and views of one mode and period (optionally one property type), across all
// cities: the denominator of every demand score. Reads the small neighbourhood_quarter_stats aggregate.
import { z } from 'zod';
import { sqlString } from '../../common/clients/clickhouse.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, sqlSafe } from './define.ts';

export const marketTotals = defineQuery({
  name: 'market.totals',
  params: z.object({
    isTest: sqlSafe.flag,
    quarterStart: sqlSafe.date,
    type: z.enum(propertyTypes).optional(),
  }),
  row: z.object({ listings: count, views: count }),
  sql: (p) => `
    SELECT sum(listings) AS listings, sum(views) AS views
    FROM neighbourhood_quarter_stats
    WHERE is_test = ${p.isTest}
      AND quarter = toDate(${sqlString(p.quarterStart)})
      AND ${p.type ? `property_type = ${sqlString(p.type)}` : `property_type != 'unknown'`}`,
});
