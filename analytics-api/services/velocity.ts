// Rental velocity (docs/analytics.md, "Velocity"): how fast listings leave the market in a quarter,
// rented apart from withdrawn/expired, with stock, absorption and a Kaplan–Meier median that counts
// the listings still on the market, for the city and each neighbourhood. Rules: ../market-rules.ts.
// An area's counts are the market's, so they follow market share's suppression rule: where fewer
// than 5 other accounts are behind them, or one holds more than 25 % of the rest, every figure of
// the area is null (`market_suppressed`) — else subtracting one's own listings would give a
// competitor's stock, entries and rentals.
import type { ClickHouseClient } from '@clickhouse/client';
import type { VelocityAnswer, VelocityFigures } from '../answers/market.ts';
import { cities } from '../../common/domain/cities.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';
import {
  MIN_EXITS_FOR_MEDIAN,
  MIN_EXITS_FOR_QUARTILES,
  round2,
  round3,
  shareFigure,
  VELOCITY_DEFINITION,
} from '../market-rules.ts';
import type { MarketParams } from '../params.ts';
import { nextQuarter, periodLabel, quarterStart } from '../period.ts';
import { velocityCohort, velocityExits, velocityPresence, velocityStock } from '../queries/velocity.ts';
import { kaplanMeierMedian, median, nearestRank, total, type Counted, type SurvivalPoint } from '../stats.ts';

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** What one area (a neighbourhood, or the whole city) contributes. */
interface Area {
  stock?: { active_before: number; net: number; weighted_net: number; entered: number };
  rentedDays: [number, number][];
  withdrawnDays: [number, number][];
  expiredDays: [number, number][];
  cohort: SurvivalPoint[];
}

export async function velocityAnswer(
  clickhouse: ClickHouseClient,
  params: MarketParams,
  isTest: boolean,
  accountId: string,
  now = Date.now(),
): Promise<VelocityAnswer> {
  const start = quarterStart(params.period);
  const end = quarterStart(nextQuarter(params.period));
  const today = day(now);
  // The period so far: its last day, or today while it runs (stock after today is not known yet).
  const lastMs = Math.min(Date.parse(end) - DAY_MS, Date.parse(today));
  const last = day(lastMs);
  const days = Math.max(0, Math.round((lastMs - Date.parse(start)) / DAY_MS) + 1);
  const scope = { isTest, city: params.city, type: params.type };
  const [stock, exits, cohort, presence] = await Promise.all([
    velocityStock.run(clickhouse, { ...scope, start, last }),
    velocityExits.run(clickhouse, { ...scope, start, end }),
    velocityCohort.run(clickhouse, { ...scope, start, end, asOf: today }),
    velocityPresence.run(clickhouse, { ...scope, quarter: start, account: accountId }),
  ]);
  // Areas whose figures could reveal a competitor (no row: nobody is behind them, nothing to show).
  const hidden = new Set(
    presence.rows
      .filter(
        (r) =>
          shareFigure({ own: r.own, market: r.market, others: r.others, topOther: r.top_other }).suppressed,
      )
      .map((r) => (r.is_city === 1 ? CITY : r.neighbourhood)),
  );
  const shown = (name: string, figures: VelocityFigures): VelocityFigures =>
    hidden.has(name) ? withheld() : figures;

  const city: Area = { stock: stock.totals, rentedDays: [], withdrawnDays: [], expiredDays: [], cohort: [] };
  const areas = new Map<string, Area>();
  const areaOf = (name: string) => {
    let area = areas.get(name);
    if (!area) areas.set(name, (area = { rentedDays: [], withdrawnDays: [], expiredDays: [], cohort: [] }));
    return area;
  };
  for (const row of stock.rows) areaOf(row.neighbourhood).stock = row;
  for (const [name, outcome, daysOnMarket, n] of exits.rows) {
    for (const area of [city, areaOf(name)]) {
      const list =
        outcome === 'rented'
          ? area.rentedDays
          : outcome === 'withdrawn'
            ? area.withdrawnDays
            : area.expiredDays;
      list.push([daysOnMarket, n]);
    }
  }
  for (const [name, event, observed, n] of cohort.rows) {
    const point = { days: observed, events: event ? n : 0, censored: event ? 0 : n };
    city.cohort.push(point);
    areaOf(name).cohort.push(point);
  }

  const figuresOf = (area: Area) => figures(area, days);
  return {
    city: cities[params.city],
    property_type: params.type,
    period: periodLabel(params.period),
    summary: shown(CITY, figuresOf(city)),
    // Listings without a neighbourhood count in the summary only. Ordered by the figures before
    // any are withheld.
    by_neighborhood: [...areas]
      .filter(([name]) => name !== '')
      .map(([name, area]) => ({ name, ...figuresOf(area) }))
      .filter((n) => n.rented! + n.withdrawn! + n.expired! + n.new_listings! + n.active! > 0)
      .sort((a, b) => b.rented! - a.rented! || b.active! - a.active! || a.name.localeCompare(b.name))
      .map(({ name, ...figures }) => ({ name, ...shown(name, figures) })),
    definition: VELOCITY_DEFINITION,
  };
}

/** The key of the city's row in `hidden` (no neighbourhood has a NUL in its name). */
const CITY = '\u0000city';

/** An area's figures when the market-share rule withholds them. */
function withheld(): VelocityFigures {
  return {
    rented: null,
    withdrawn: null,
    expired: null,
    new_listings: null,
    active: null,
    average_active: null,
    absorption: null,
    median_days_to_rent: null,
    p25_days_to_rent: null,
    p75_days_to_rent: null,
    median_days_to_withdraw: null,
    p25_days_to_withdraw: null,
    p75_days_to_withdraw: null,
    km_median_days_to_rent: null,
    suppressed: true,
    quartiles_suppressed: true,
    km_suppressed: true,
    market_suppressed: true,
  };
}

function figures(area: Area, days: number): VelocityFigures {
  const rented = total(area.rentedDays);
  const unrented: Counted = [...area.withdrawnDays, ...area.expiredDays];
  const withdrawnOrExpired = total(unrented);
  const s = area.stock ?? { active_before: 0, net: 0, weighted_net: 0, entered: 0 };
  const averageActive = days > 0 ? s.active_before + s.weighted_net / days : null;
  const kmEvents = area.cohort.reduce((sum, p) => sum + p.events, 0);
  const withQuartiles = (values: Counted, n: number, p: number) =>
    n >= MIN_EXITS_FOR_QUARTILES ? nearestRank(values, p) : null;
  return {
    rented,
    withdrawn: total(area.withdrawnDays),
    expired: total(area.expiredDays),
    new_listings: s.entered,
    active: s.active_before + s.net,
    average_active: averageActive === null ? null : round2(averageActive),
    absorption: averageActive ? round3(rented / averageActive) : null,
    median_days_to_rent: rented >= MIN_EXITS_FOR_MEDIAN ? median(area.rentedDays) : null,
    p25_days_to_rent: withQuartiles(area.rentedDays, rented, 0.25),
    p75_days_to_rent: withQuartiles(area.rentedDays, rented, 0.75),
    median_days_to_withdraw: withdrawnOrExpired >= MIN_EXITS_FOR_MEDIAN ? median(unrented) : null,
    p25_days_to_withdraw: withQuartiles(unrented, withdrawnOrExpired, 0.25),
    p75_days_to_withdraw: withQuartiles(unrented, withdrawnOrExpired, 0.75),
    km_median_days_to_rent: kmEvents >= MIN_EXITS_FOR_MEDIAN ? kaplanMeierMedian(area.cohort) : null,
    suppressed: rented < MIN_EXITS_FOR_MEDIAN,
    quartiles_suppressed: rented < MIN_EXITS_FOR_QUARTILES,
    km_suppressed: kmEvents < MIN_EXITS_FOR_MEDIAN,
    market_suppressed: false,
  };
}
