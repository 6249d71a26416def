// The pricing answer's prepared figures (PRICE_SUMMARIES_CRON, default every 10 s): one worker of
// the cluster finds the groups whose summary no longer counts what is stored
// (common/warehouse/price-summaries.ts) and writes again those that are quiet, i.e. whose stored
// count is the one this worker saw at its previous run. A group being loaded changes between runs
// and is left alone until the load ends: preparing it each run would cost a scan of its prices per
// run for a summary outdated by the next insert, and its readers get the exact answer meanwhile.
import type { Platform } from '../../common/platform.ts';
import {
  preparePriceSummaries,
  stalePriceGroups,
  type PriceGroup,
} from '../../common/warehouse/price-summaries.ts';
import type { Job } from './schedule.ts';

const groupKey = (g: PriceGroup) => `${g.is_test}/${g.city}/${g.property_type}/${g.quarter}`;

export function priceSummariesJob(platform: Platform, cron: string): Job {
  const logger = platform.logger.child({ task: 'price-summaries' });
  /** Stored count of each stale group at this worker's previous run. */
  let seen = new Map<string, number>();
  return {
    name: 'price-summaries',
    cron,
    lockTtlMs: 120_000,
    async run() {
      const started = Date.now();
      const { rows: stale } = await stalePriceGroups.run(platform.clickhouse, {});
      const quiet = stale.filter((group) => seen.get(groupKey(group)) === group.stored);
      seen = new Map(stale.map((group) => [groupKey(group), group.stored]));
      if (quiet.length === 0) return;
      await preparePriceSummaries(platform.clickhouse, quiet);
      logger.info('price summaries prepared', {
        groups: quiet.length,
        still_changing: stale.length - quiet.length,
        ms: Date.now() - started,
      });
    },
  };
}
