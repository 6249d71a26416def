// The pure rules of the listing lifecycle: spell transitions, order statistics, Kaplan–Meier,
// market-share suppression, mix adjustment and the month-of-year index (docs/analytics.md).
import { describe, expect, it } from 'vitest';
import type { ListingState } from '../../common/lifecycle/states.ts';
import {
  mixAdjusted,
  monthOfYearIndex,
  seasonalityStatus,
  shareFigure,
} from '../../analytics-api/market-rules.ts';
import { kaplanMeierMedian, median, nearestRank } from '../../analytics-api/stats.ts';
import { applyChange, type StatusChange } from '../../stream/lifecycle/transition.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';

const t0 = Date.parse('2025-03-01T00:00:00Z');
const state: ListingState = {
  listing_id: '00000000-0000-4000-8000-000000000001',
  account_id: 'a',
  is_test: false,
  external_id: '',
  listed_at: t0,
  property_type: 'house',
  city: 'arusha',
  neighbourhood: 'Njiro',
  status: 'active',
  status_at: t0,
  spell_started_at: t0,
  exited_at: 0,
  exit_days: 0,
  updated_at: t0,
  version: 0,
};
const change = (status: StatusChange['status'], day: number, hours = 0): StatusChange => ({
  status,
  at: t0 + day * DAY_MS + hours * 3_600_000,
  recordedAt: t0 + 400 * DAY_MS,
  source: 'api',
});

function walk(changes: StatusChange[]) {
  let current = state;
  return changes.map((c) => {
    const applied = applyChange(current, c);
    if (applied.kind !== 'changed') return applied.kind;
    current = applied.state;
    return [
      applied.effect.transition,
      applied.effect.exit_days,
      (applied.state.spell_started_at - t0) / DAY_MS,
    ];
  });
}

describe('spell transitions (happy)', () => {
  it('exit counts whole days; a return within 30 days continues the spell, a later one relists', () => {
    expect(
      walk([
        change('under_contract', 3),
        change('rented', 10, 23),
        change('active', 40, 23),
        change('withdrawn', 50),
      ]),
    ).toEqual([
      ['none', 0, 0],
      ['exit', 10, 0], // 10 days 23 h → 10
      ['return', 10, 0], // exactly 30 days after the exit: still a return
      ['exit', 50, 0],
    ]);
    expect(walk([change('withdrawn', 10), change('active', 40, 1), change('rented', 45)])).toEqual([
      ['exit', 10, 0],
      ['relist', 0, 40 + 1 / 24],
      ['exit', 4, 40 + 1 / 24], // 4 days 23 h
    ]);
  });

  it('relabels an exit without moving it, and treats a repeated status as a no-op', () => {
    expect(walk([change('withdrawn', 10), change('rented', 20), change('rented', 21)])).toEqual([
      ['exit', 10, 0],
      ['relabel', 10, 0],
      'same',
    ]);
  });
});

describe('spell transitions (error)', () => {
  it('refuses a change dated before the last one', () => {
    expect(walk([change('rented', 10), change('active', 9)])).toEqual([['exit', 10, 0], 'out_of_order']);
  });
});

describe('order statistics and Kaplan–Meier (happy)', () => {
  it('gives the exact median, nearest-rank quartiles, and nulls for nothing', () => {
    expect(
      median([
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 1],
      ]),
    ).toBe(2.5);
    expect(
      median([
        [5, 2],
        [1, 1],
      ]),
    ).toBe(5);
    expect(median([])).toBeNull();
    const values = Array.from({ length: 30 }, (_, i) => [i + 1, 1] as const);
    expect([nearestRank(values, 0.25), nearestRank(values, 0.75)]).toEqual([8, 23]);
    expect(
      median([
        [3, 2],
        [3, -2],
        [7, 1],
      ]),
    ).toBe(7); // signed counts net out
  });

  it('counts censored listings as at risk at their time and returns null when S never reaches 0.5', () => {
    // 4 listings: rented at 2; censored at 3; rented at 5; censored at 9 → S(2)=3/4, S(5)=3/4·1/2=3/8.
    expect(
      kaplanMeierMedian([
        { days: 2, events: 1, censored: 0 },
        { days: 3, events: 0, censored: 1 },
        { days: 5, events: 1, censored: 0 },
        { days: 9, events: 0, censored: 1 },
      ]),
    ).toBe(5);
    // Tie: an event and a censoring at 4 — the censored one is still at risk at 4: S = 1/2 exactly.
    expect(kaplanMeierMedian([{ days: 4, events: 1, censored: 1 }])).toBe(4);
    expect(kaplanMeierMedian([{ days: 4, events: 1, censored: 3 }])).toBeNull();
  });
});

describe('market share suppression (security)', () => {
  it('needs 5 other accounts and none above 25 % of the rest; own counts always show', () => {
    expect(shareFigure({ own: 2, market: 10, others: 4, topOther: 2 })).toEqual({
      own: 2,
      market: null,
      share: null,
      suppressed: true,
    });
    expect(shareFigure({ own: 2, market: 10, others: 5, topOther: 2 })).toEqual({
      own: 2,
      market: 10,
      share: 0.2,
      suppressed: false,
    }); // 2 of the rest's 8: exactly 25 %
    expect(shareFigure({ own: 2, market: 10, others: 6, topOther: 3 }).suppressed).toBe(true);
    expect(shareFigure({ own: 0, market: 0, others: 0, topOther: 0 }).suppressed).toBe(true);
  });
});

describe('seasonality rules (happy)', () => {
  it('mix-adjusts over the classes listed, with fixed weights', () => {
    const weights = new Map([
      [1, 0.5],
      [2, 0.25],
      [0, 0.25],
    ]);
    expect(
      mixAdjusted(
        new Map([
          [1, 100],
          [2, 200],
        ]),
        weights,
      ),
    ).toBe(133.33);
    expect(mixAdjusted(new Map(), weights)).toBeNull();
  });

  it('indexes by calendar month over whole years counted back from the end', () => {
    const series = Array.from({ length: 15 }, (_, i) => ({
      month: new Date(Date.UTC(2024, 9 + i, 1)).toISOString().slice(0, 7), // 2024-10 … 2025-12
      value: i >= 3 ? (i % 2 ? 120 : 80) : null,
    }));
    const index = monthOfYearIndex(series, 12)!;
    expect(index).toHaveLength(12);
    expect(index[0]).toEqual({ month: 1, index: 1.2, years: 1 }); // 2025-01 is i = 3 → 120 of mean 100
    expect(index[1]).toEqual({ month: 2, index: 0.8, years: 1 });
    expect(monthOfYearIndex(series, 11)).toBeNull();
    expect([11, 12, 23, 24].map(seasonalityStatus)).toEqual([
      'insufficient_history',
      'provisional',
      'provisional',
      'ok',
    ]);
  });
});
