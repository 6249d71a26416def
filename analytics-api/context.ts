// Composition root of the analytics API.
import type { Platform } from '../common/platform.ts';
import { createAnswerCache, type AnswerCache } from './cache.ts';
import type { AnalyticsSettings } from './env.ts';
import { createCellFacts } from './geo/cell-facts.ts';
import { accuracySource } from './services/estimate-accuracy.ts';
import type { EstimateDeps } from './services/estimate.ts';
import type { HeatmapDeps } from './services/heatmap.ts';
import type { PricingDeps } from './services/pricing.ts';
import { createPricingLag } from './services/pricing-lag.ts';

export interface AnalyticsContext {
  platform: Platform;
  cache: AnswerCache;
  /** Rent estimates: ClickHouse, the latest backtest's accuracy, the USD rate. */
  estimates: EstimateDeps;
  /** Pricing: ClickHouse and this process's memory of scopes whose summaries lagged lately. */
  pricing: PricingDeps;
  /** Heatmap: ClickHouse and this process's memory of cell ids and centres. */
  heatmap: HeatmapDeps;
  close(): Promise<void>;
}

/** `settings`: ANALYTICS_CACHE_TTL_SECONDS and FX_USD_TZS of the serving process's environment. */
export async function createAnalyticsContext(
  platform: Platform,
  settings: AnalyticsSettings,
): Promise<AnalyticsContext> {
  const ttl = settings.ANALYTICS_CACHE_TTL_SECONDS;
  const cache = createAnswerCache({
    redis: platform.redis,
    keyPrefix: platform.env.REDIS_KEY_PREFIX,
    ttlSeconds: ttl,
    logger: platform.logger,
  });
  const estimates: EstimateDeps = {
    clickhouse: platform.clickhouse,
    // The backtest runs daily; its latest run is re-read once per cache lifetime (≥ 1 s).
    accuracy: accuracySource(platform.clickhouse, Math.max(1, ttl)),
    usdTzs: settings.FX_USD_TZS,
  };
  const pricing: PricingDeps = { clickhouse: platform.clickhouse, lag: createPricingLag() };
  const heatmap: HeatmapDeps = { clickhouse: platform.clickhouse, cells: createCellFacts() };
  return { platform, cache, estimates, pricing, heatmap, close: async () => undefined };
}
