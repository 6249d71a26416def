// Rental velocity (docs/analytics.md, "Velocity"): how fast listings leave the market in a quarter,
// rented apart from withdrawn/expired, with stock, absorption and a Kaplan–Meier median that counts
// the listings still on the market, for the city and each neighbourhood. Rules: ../market-rules.ts.
import type { ClickHouseClient } from '@clickhouse/client';
import { cities } from '../../common/domain/cities.ts';
import {
  MIN_EXITS_FOR_MEDIAN,
  MIN_EXITS_FOR_QUARTILES,
  round2,
  round3,
  VELOCITY_DEFINITION,
} from '../market-rules.ts';
import type { MarketParams } from '../params.ts';
import { nextQuarter, periodLabel, quarterStart } from '../period.ts';
import { velocityCohort, velocityExits, velocityStock } from '../queries/velocity.ts';
import { kaplanMeierMedian, median, nearestRank, total, type Counted, type SurvivalPoint } from '../stats.ts';

export interface VelocityFigures {
  rented: number;
  withdrawn: number;
  expired: number;
  new_listings: number;
  active: number;
  average_active: number | null;
  absorption: number | null;
  median_days_to_rent: number | null;
  p25_days_to_rent: number | null;
  p75_days_to_rent: number | null;
  median_days_to_withdraw: number | null;
  p25_days_to_withdraw: number | null;
  p75_days_to_withdraw: number | null;
  km_median_days_to_rent: number | null;
  suppressed: boolean;
  quartiles_suppressed: boolean;
  km_suppressed: boolean;
}

export interface VelocityAnswer {
  city: string;
  property_type: string;
  period: string;
  summary: VelocityFigures;
  by_neighborhood: ({ name: string } & VelocityFigures)[];
  definition: string;
}

const DAY_MS = 86_400_000;
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
  const [stock, exits, cohort] = await Promise.all([
    velocityStock.run(clickhouse, { ...scope, start, last }),
    velocityExits.run(clickhouse, { ...scope, start, end }),
    velocityCohort.run(clickhouse, { ...scope, start, end, asOf: today }),
  ]);

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
    summary: figuresOf(city),
    // Listings without a neighbourhood count in the summary only.
    by_neighborhood: [...areas]
      .filter(([name]) => name !== '')
      .map(([name, area]) => ({ name, ...figuresOf(area) }))
      .filter((n) => n.rented + n.withdrawn + n.expired + n.new_listings + n.active > 0)
      .sort((a, b) => b.rented - a.rented || b.active - a.active || a.name.localeCompare(b.name)),
    definition: VELOCITY_DEFINITION,
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
  };
}
