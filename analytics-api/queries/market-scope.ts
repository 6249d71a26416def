// The scope shared by the market-flow queries (velocity, seasonality, market share): one city and
// property type, live or test data, as zod params, query parameters and the matching WHERE clause.
import { z } from 'zod';
import { citySlugs } from '../../common/domain/cities.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { flag } from '../../common/warehouse/query.ts';

export const marketScope = {
  isTest: z.boolean(),
  city: z.enum(citySlugs),
  type: z.enum(propertyTypes),
};

export const marketScopeParams = (p: { isTest: boolean; city: string; type: string }) => ({
  isTest: flag(p.isTest),
  city: p.city,
  type: p.type,
});

export const marketScopeWhere = `is_test = {isTest:UInt8} AND city = {city:String} AND property_type = {type:String}`;

/** A count, coerced: the server may send an integer type as a JSON number or a string. */
export const int = z.coerce.number().int();

/** The zod columns own_m, market_m, others_m, top_other_m of each figure m (../suppression.ts). */
export function behindColumnsOf<M extends string>(metrics: readonly M[]) {
  return Object.fromEntries(
    metrics.flatMap((m) => ['own', 'market', 'others', 'top_other'].map((c) => [`${c}_${m}`, int])),
  ) as Record<`${'own' | 'market' | 'others' | 'top_other'}_${M}`, typeof int>;
}
