// Exchange rates to TZS, used to store price_tzs next to the original price. The rate used is stored
// in every row (fx_rate_to_tzs), so a later rate change never rewrites history and analysts can
// recompute. USD/TZS defaults to 2,500 (Bank of Tanzania mid-rate order of magnitude, 2024-25) and is
// set per deployment with FX_USD_TZS.
import { DEFAULT_USD_TZS } from '../../common/domain/fx.ts';
import type { Currency } from '../../common/domain/listing.ts';

export type FxTable = Record<Currency, number>;

export { DEFAULT_USD_TZS };

export function fxTable(usdToTzs: number = DEFAULT_USD_TZS): FxTable {
  if (!Number.isFinite(usdToTzs) || usdToTzs <= 0) throw new Error(`bad USD/TZS rate ${usdToTzs}`);
  return { TZS: 1, USD: usdToTzs };
}

export function toTzs(
  table: FxTable,
  price: number,
  currency: Currency,
): { price_tzs: number; rate: number } {
  const rate = table[currency];
  // Whole shillings: sub-shilling precision is noise for monthly rents.
  return { price_tzs: Math.round(price * rate), rate };
}
