// The lifecycle answers (services/velocity.ts, market-share.ts, seasonality.ts): their types and
// their schemas in the OpenAPI document.
import { z } from 'zod';
import { propertyTypes } from '../../common/domain/listing.ts';

const days = z.number().nullable();
const velocityFigures = {
  rented: z
    .number()
    .int()
    .nullable()
    .describe(
      'Listings rented in the period (exits by the at of their rented status); null when withheld (see withheld)',
    ),
  withdrawn: z.number().int().nullable(),
  expired: z.number().int().nullable(),
  new_listings: z
    .number()
    .int()
    .nullable()
    .describe('Market entries in the period: new listings and relists'),
  active: z
    .number()
    .int()
    .nullable()
    .describe('On the market at the end of the period (today while it runs)'),
  average_active: z.number().nullable().describe('Mean of the daily stock over the period so far'),
  absorption: z.number().nullable().describe('rented ÷ average_active'),
  median_days_to_rent: days.describe('Exact median; null (suppressed) under 10 rentals'),
  p25_days_to_rent: days.describe('Nearest rank; null under 30 rentals'),
  p75_days_to_rent: days,
  median_days_to_withdraw: days.describe('Withdrawn and expired together; same thresholds'),
  p25_days_to_withdraw: days,
  p75_days_to_withdraw: days,
  km_median_days_to_rent: days.describe(
    'Kaplan–Meier median over the spells that started in the period; listings still on the market are censored',
  ),
  suppressed: z
    .boolean()
    .describe('median_days_to_rent is null: fewer than 10 rentals, or the rentals are withheld'),
  quartiles_suppressed: z.boolean(),
  km_suppressed: z.boolean(),
  market_suppressed: z
    .boolean()
    .describe(
      "Some figures of the area are withheld (null, named in withheld) by market share's rules: fewer than 5 other accounts behind the figure, or one holding more than 25 % of the rest; or the figure could be recovered by subtracting the figures shown from the city's",
    ),
  withheld: z
    .array(z.string())
    .describe(
      'The figures of the area withheld by the suppression rules, each decided on its own: rented (with the days to rent, absorption and Kaplan–Meier median), withdrawn and expired (with the days to withdraw), new_listings, active and average_active',
    ),
};

/** A city's figures and each neighbourhood's, for a property type and a quarter. */
const areaAnswer = <F extends z.ZodRawShape>(figures: F) =>
  z.object({
    city: z.string(),
    property_type: z.enum(propertyTypes),
    period: z.string(),
    summary: z.object(figures),
    by_neighborhood: z.array(z.object({ name: z.string(), ...figures })),
  });

export const velocityAnswerSchema = areaAnswer(velocityFigures).extend({
  definition: z.string().describe('The rule version and its definition'),
});

const shareFigures = {
  own_listings: z.number().int().describe("The account's listings on the market at the end of the period"),
  market_listings: z.number().int().nullable().describe('All accounts; null when suppressed'),
  share: z.number().nullable(),
  suppressed: z
    .boolean()
    .describe(
      "market_listings is withheld: fewer than 5 other accounts, or one holds more than 25 % of the rest; or, for a neighbourhood or the city, it could otherwise be recovered by subtracting the neighbourhoods shown from the city's figure. The *_suppressed flags of the other figures mean the same for them",
    ),
  own_new_listings: z.number().int(),
  market_new_listings: z.number().int().nullable(),
  new_listings_share: z.number().nullable(),
  new_listings_suppressed: z.boolean(),
  own_rented: z.number().int(),
  market_rented: z.number().int().nullable(),
  rented_share: z.number().nullable(),
  rented_suppressed: z.boolean(),
  own_views: z.number().int(),
  market_views: z.number().int().nullable(),
  views_share: z.number().nullable(),
  views_suppressed: z.boolean(),
};

export const marketShareAnswerSchema = areaAnswer(shareFigures);

export const seasonalityAnswerSchema = z.object({
  city: z.string(),
  property_type: z.enum(propertyTypes),
  status: z.enum(['insufficient_history', 'provisional', 'ok']),
  history_months: z.number().int(),
  mix_weights: z
    .array(z.object({ bedrooms: z.string(), weight: z.number() }))
    .describe('Bedroom classes over the listings of the months whose listed figure is shown'),
  months: z.array(
    z.object({
      month: z.string().describe('YYYY-MM'),
      median_price_tzs: z
        .number()
        .nullable()
        .describe('Mix-adjusted (fixed bedroom weights) median asking rent'),
      raw_median_price_tzs: z.number().nullable(),
      listed: z.number().int().nullable().describe('Listings listed that month (the rents)'),
      new_listings: z.number().int().nullable(),
      views: z.number().int().nullable(),
      average_active: z.number().nullable(),
      views_per_active_listing: z.number().nullable(),
      rented: z.number().int().nullable(),
      median_days_to_rent: z.number().nullable(),
      suppressed: z
        .boolean()
        .describe(
          "Some of the month's market figures are withheld (null, named in withheld) by market share's rules: fewer than 5 other accounts behind the figure, or one holding more than 25 % of the rest; or the figure could be recovered from the quarter's (another month of the quarter is withheld with it)",
        ),
      withheld: z
        .array(z.string())
        .describe(
          'The figures withheld, each decided on its own: listed (with both medians), new_listings, views, average_active (with views_per_active_listing) and rented (with median_days_to_rent)',
        ),
    }),
  ),
  month_of_year_index: z
    .array(
      z.object({
        month: z.number().int().describe('1 = January'),
        price_index: z.number().nullable(),
        new_listings_index: z.number().nullable(),
        years: z.number().int(),
      }),
    )
    .nullable(),
});

/** The figures of an area; every count is null when the area is market_suppressed. */
export type VelocityFigures = z.infer<typeof velocityAnswerSchema>['summary'];
export type VelocityAnswer = z.infer<typeof velocityAnswerSchema>;
export type ShareFigures = z.infer<typeof marketShareAnswerSchema>['summary'];
export type MarketShareAnswer = z.infer<typeof marketShareAnswerSchema>;
export type SeasonalityAnswer = z.infer<typeof seasonalityAnswerSchema>;
export type SeasonalityMonth = SeasonalityAnswer['months'][number];
