// The highest monthly rent per property type that the service accepts as plausible
// (docs/ingest.md, "Plausible prices"). Far higher amounts are typing or currency mistakes (a sale
// price, cents, a TZS amount sent as USD) or deliberate noise, and one of them would dominate every
// mean it enters: the heatmap's avg_price and the price sums of the aggregates. Medians are robust,
// means are not, so such listings are refused at ingest (code implausible_price). Very low prices
// barely move a mean and are left alone.
import type { Currency, PropertyType } from './listing.ts';

/** TZS per month; generous: ~40× the dearest rents seen in Dar es Salaam for homes. */
export const MAX_MONTHLY_RENT_TZS: Record<PropertyType, number> = {
  room: 100_000_000,
  studio: 100_000_000,
  apartment: 1_000_000_000,
  house: 1_000_000_000,
  commercial: 10_000_000_000,
  land: 10_000_000_000,
};

/**
 * USD amounts are compared at this fixed rate (the stream's default FX_USD_TZS). A deployment's own
 * rate differs by a few per cent at most, which does not matter for a bound this coarse.
 */
export const PLAUSIBILITY_USD_TZS = 2_500;

/** The limit for `type` in `currency`, or undefined when the price is plausible. */
export function implausibleRentLimit(
  type: PropertyType,
  price: number,
  currency: Currency,
): number | undefined {
  const limitTzs = MAX_MONTHLY_RENT_TZS[type];
  const limit = currency === 'USD' ? limitTzs / PLAUSIBILITY_USD_TZS : limitTzs;
  return price > limit ? limit : undefined;
}
