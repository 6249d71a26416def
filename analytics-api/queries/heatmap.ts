// SQL of the heatmap endpoint (spec §2.5): listings, price sums and views per resolution-8 cell from
// the cell_quarter_stats aggregate (migration 0011), read as a few h3_index ranges of its sort key.
import { z } from 'zod';
import { sqlString } from '../../common/clients/clickhouse.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, sqlSafe } from './define.ts';

export const MAX_RANGES = 200;

export const cellStats = defineQuery({
  name: 'heatmap.cell_stats',
  params: z.object({
    isTest: sqlSafe.flag,
    quarterStart: sqlSafe.date,
    type: z.enum(propertyTypes).optional(),
    ranges: z
      .array(z.object({ lo: sqlSafe.uint64, hi: sqlSafe.uint64 }))
      .min(1)
      .max(MAX_RANGES),
  }),
  row: z.object({
    cell: z.string().regex(/^\d+$/),
    listings: count,
    price_tzs_sum: z.number(),
    views: count,
  }),
  sql: (p) => `
    SELECT toString(h3_index) AS cell, sum(listings) AS listings, sum(price_tzs_sum) AS price_tzs_sum, sum(views) AS views
    FROM cell_quarter_stats
    WHERE is_test = ${p.isTest}
      AND quarter = toDate(${sqlString(p.quarterStart)})
      AND (${p.ranges.map((r) => `h3_index BETWEEN ${r.lo} AND ${r.hi}`).join(' OR ')})
      ${p.type ? `AND property_type = ${sqlString(p.type)}` : ''}
    GROUP BY h3_index
    HAVING listings > 0`,
});
