// Rental velocity (docs/analytics.md, "Velocity"): how fast listings leave the market in a quarter,
// rented apart from withdrawn/expired, with stock, absorption and a Kaplan–Meier median that counts
// the listings still on the market, for the city and each neighbourhood. Rules: ../market-rules.ts.
// An area's counts are the market's, so each follows market share's suppression rules
// (../suppression.ts): a figure with fewer than 5 other accounts behind it, or one holding more than
// 25 % of the rest, is null, and so is whatever would let it be recovered from the city's figure —
// else subtracting one's own listings would give a competitor's stock, entries and rentals.
import type { ClickHouseClient } from '@clickhouse/client';
import type { VelocityAnswer, VelocityFigures } from '../answers/market.ts';
import { cities } from '../../common/domain/cities.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';
import {
  MIN_EXITS_FOR_MEDIAN,
  MIN_EXITS_FOR_QUARTILES,
  round2,
  round3,
  VELOCITY_DEFINITION,
} from '../market-rules.ts';
import { decideAreas, type AreaDecisions } from '../suppression.ts';
import type { MarketParams } from '../params.ts';
import { nextQuarter, periodLabel, quarterStart } from '../period.ts';
import {
  velocityBehind,
  velocityCohort,
  velocityExits,
  velocityMetrics,
  velocityStock,
  type VelocityMetric,
} from '../queries/velocity.ts';
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
  const [stock, exits, cohort, behind] = await Promise.all([
    velocityStock.run(clickhouse, { ...scope, start, last }),
    velocityExits.run(clickhouse, { ...scope, start, end }),
    velocityCohort.run(clickhouse, { ...scope, start, end, asOf: today }),
    velocityBehind.run(clickhouse, { ...scope, quarter: start, account: accountId }),
  ]);
  // Decided from the same request's rows as the figures; an area without a row has nobody behind
  // it, so nothing of it is shown.
  const decisions = decideAreas(behind.rows, velocityMetrics);

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
    summary: withhold(figuresOf(city), shownOf(decisions, null)),
    // Listings without a neighbourhood count in the summary only. Ordered by name: an order by
    // the figures would rank the withheld ones.
    by_neighborhood: [...areas]
      .filter(([name]) => name !== '')
      .map(([name, area]) => ({ name, ...figuresOf(area) }))
      .filter((n) => n.rented! + n.withdrawn! + n.expired! + n.new_listings! + n.active! > 0)
      .sort((a, b) => a.name.localeCompare(b.name))
      .map(({ name, ...figures }) => ({ name, ...withhold(figures, shownOf(decisions, name)) })),
    definition: VELOCITY_DEFINITION,
  };
}

/** Which of its figures an area (`neighbourhood`, or the city: null) may show. */
function shownOf(decisions: AreaDecisions<VelocityMetric>, neighbourhood: string | null) {
  return (m: VelocityMetric) =>
    neighbourhood === null ? decisions[m].totalShown : decisions[m].shownParts.has(neighbourhood);
}

/** The figures each rule figure stands for (km: the spells that entered in the period). */
const figuresBehind: Record<VelocityMetric, readonly (keyof VelocityFigures)[]> = {
  rented: [
    'rented',
    'median_days_to_rent',
    'p25_days_to_rent',
    'p75_days_to_rent',
    'absorption',
    'km_median_days_to_rent',
  ],
  unrented: [
    'withdrawn',
    'expired',
    'median_days_to_withdraw',
    'p25_days_to_withdraw',
    'p75_days_to_withdraw',
  ],
  new_listings: ['new_listings', 'km_median_days_to_rent'],
  active: ['active'],
  present: ['average_active', 'absorption'],
};

/** An area's figures with those the suppression rules withhold set to null and named in `withheld`. */
function withhold(figures: VelocityFigures, shown: (m: VelocityMetric) => boolean): VelocityFigures {
  const withheld = new Set(velocityMetrics.filter((m) => !shown(m)).flatMap((m) => figuresBehind[m]));
  const out: Record<string, unknown> = { ...figures };
  for (const name of withheld) out[name] = null;
  return {
    ...(out as VelocityFigures),
    suppressed: figures.suppressed || withheld.has('median_days_to_rent'),
    quartiles_suppressed: figures.quartiles_suppressed || withheld.has('p25_days_to_rent'),
    km_suppressed: figures.km_suppressed || withheld.has('km_median_days_to_rent'),
    market_suppressed: withheld.size > 0,
    withheld: [...withheld].sort(),
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
    withheld: [],
  };
}
