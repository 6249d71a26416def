// The pricing answer (services/pricing.ts): its type and its schema in the OpenAPI document.
import { z } from 'zod';
import { propertyTypes } from '../../common/domain/listing.ts';
import { trends } from '../rules.ts';

export const pricingAnswerSchema = z.object({
  city: z.string().describe('City display name'),
  property_type: z.enum(propertyTypes),
  period: z.string().describe('YYYY-Qn'),
  summary: z.object({
    median_price_tzs: z.number().nullable().describe('Exact median; null when total_listings is 0'),
    avg_price_tzs: z.number().nullable(),
    min_price_tzs: z.number().nullable(),
    max_price_tzs: z.number().nullable(),
    total_listings: z.number().int(),
  }),
  by_neighborhood: z.array(
    z.object({
      name: z.string(),
      median_price: z.number().describe('Exact median price in TZS'),
      listing_count: z.number().int(),
      demand_score: z.number().describe('Views per listing ÷ market views per listing (1 = market average)'),
      trend: z.enum(trends),
    }),
  ),
});

export type PricingAnswer = z.infer<typeof pricingAnswerSchema>;
