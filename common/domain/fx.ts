// The USD→TZS rate a deployment runs with (FX_USD_TZS): the stream stores price_tzs with it, the
// analytics answers in USD with it. Set the same value on every process.
/** Bank of Tanzania mid-rate order of magnitude (2024-25). */
export const DEFAULT_USD_TZS = 2_500;
