// Composition root of the analytics API.
import { createClickHouse } from '../common/clients/clickhouse.ts';
import type { Platform } from '../common/platform.ts';
import { createAdmission } from './admission.ts';
import { createAnswerCache, type AnswerCache } from './cache.ts';
import type { AnalyticsSettings } from './env.ts';
import { createCellFacts } from './geo/cell-facts.ts';
import { accuracySource } from './services/estimate-accuracy.ts';
import type { EstimateDeps } from './services/estimate.ts';
import type { HeatmapDeps } from './services/heatmap.ts';
import type { PricingDeps } from './services/pricing.ts';
import { createPricingLag } from './services/pricing-lag.ts';

export interface AnalyticsContext {
  /** The process's clients; `clickhouse` is the analytics' own (CLICKHOUSE_ANALYTICS_USER). */
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

/**
 * `settings`: the analytics settings of the serving process's environment (env.ts). With
 * CLICKHOUSE_ANALYTICS_USER the analytics read through a client of their own, as that user; the
 * context's `platform` is the process's with that client in place of its own.
 */
export async function createAnalyticsContext(
  processPlatform: Platform,
  settings: AnalyticsSettings,
): Promise<AnalyticsContext> {
  const ownClient = settings.CLICKHOUSE_ANALYTICS_USER
    ? createClickHouse({
        url: processPlatform.env.CLICKHOUSE_URL,
        username: settings.CLICKHOUSE_ANALYTICS_USER,
        password: settings.CLICKHOUSE_ANALYTICS_PASSWORD,
        database: processPlatform.env.CLICKHOUSE_DATABASE,
      })
    : undefined;
  const platform: Platform = ownClient ? { ...processPlatform, clickhouse: ownClient } : processPlatform;
  const ttl = settings.ANALYTICS_CACHE_TTL_SECONDS;
  const admission = createAdmission({
    total: settings.ANALYTICS_MAX_IN_FLIGHT,
    perAccount: settings.ANALYTICS_MAX_IN_FLIGHT_PER_ACCOUNT,
    queuePerAccount: settings.ANALYTICS_QUEUE_PER_ACCOUNT,
  });
  const cache = createAnswerCache({
    redis: platform.redis,
    keyPrefix: platform.env.REDIS_KEY_PREFIX,
    parts: platform.env.REDIS_GLOBAL_PARTS,
    ttlSeconds: ttl,
    logger: platform.logger,
    admit: (account, compute) => admission.run(account, compute),
  });
  const estimates: EstimateDeps = {
    clickhouse: platform.clickhouse,
    // The backtest runs daily; its latest run is re-read once per cache lifetime (≥ 1 s).
    accuracy: accuracySource(platform.clickhouse, Math.max(1, ttl)),
    usdTzs: settings.FX_USD_TZS,
  };
  const pricing: PricingDeps = { clickhouse: platform.clickhouse, lag: createPricingLag() };
  const heatmap: HeatmapDeps = { clickhouse: platform.clickhouse, cells: createCellFacts() };
  const close = async () => {
    await ownClient?.close().catch(() => undefined);
  };
  return { platform, cache, estimates, pricing, heatmap, close };
}
