// Pricing by city and property type (spec §2.4, §4.3).
import { z } from 'zod';
import { queryRows, sqlString } from '../../common/clients/clickhouse.ts';
import { cities, citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import type { AnalyticsContext } from '../context.ts';

export const pricingParamsSchema = z.object({
  city: z.enum(citySlugs as [string, ...string[]]),
  type: z.enum(propertyTypes),
});
export type PricingParams = z.infer<typeof pricingParamsSchema>;

const summaryRow = z.object({ total: z.coerce.number() });

export async function pricing(ctx: AnalyticsContext, params: PricingParams, isTest: boolean) {
  const rows = await queryRows<unknown>(
    ctx.platform.clickhouse,
    `SELECT count() AS total FROM listings
     WHERE is_test = ${isTest ? 1 : 0} AND city = ${sqlString(params.city)} AND property_type = ${sqlString(params.type)}`,
  );
  const summary = summaryRow.parse(rows[0]);
  return {
    city: cities[params.city as keyof typeof cities],
    property_type: params.type,
    summary: { total_listings: summary.total },
    by_neighborhood: [],
  };
}
