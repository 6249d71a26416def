// The suppression rules shared by market share, velocity and seasonality (analytics-api/suppression.ts):
// the primary rule, the bound on a sum of withheld figures, and complementary suppression of parts
// of a total (neighbourhoods of a city, months of a quarter).
import { describe, expect, it } from 'vitest';
import {
  decideAreas,
  decideTable,
  discloses,
  sumIsSafe,
  withheldParts,
  type Behind,
} from '../../analytics-api/suppression.ts';
import { wholeQuarters } from '../../analytics-api/services/seasonality.ts';

/** `n` other accounts with `each` listings, plus the caller's `own`. */
const even = (n: number, each: number, own = 0): Behind => ({
  own,
  market: n * each + own,
  others: n,
  topOther: n ? each : 0,
});
const part = (key: string, behind: Behind, unpublished = false) => ({ key, behind, unpublished });

describe('primary rule (security)', () => {
  it('needs 5 other accounts and none above 25 % of the rest', () => {
    expect(discloses(even(4, 3))).toBe(true);
    expect(discloses(even(5, 3, 10))).toBe(false); // own listings do not count among the rest
    expect(discloses({ own: 0, market: 8, others: 5, topOther: 2 })).toBe(false); // exactly 25 %
    expect(discloses({ own: 0, market: 8, others: 5, topOther: 3 })).toBe(true);
    expect(discloses(even(0, 0))).toBe(true);
  });
});

describe('sum of withheld figures (security)', () => {
  it('is safe only when its bounds pass the rule, or nobody else is in it', () => {
    expect(sumIsSafe([])).toBe(true);
    expect(sumIsSafe([even(0, 0, 3)])).toBe(true); // only the caller's own listings
    expect(sumIsSafe([even(1, 3)])).toBe(false);
    // 1 account of 3 beside 5 of 2: at most 3 + 2 of 13 for one account (38 %).
    expect(sumIsSafe([even(1, 3), even(5, 2)])).toBe(false);
    // beside 10 of 2 and 8 of 1: at most 3 + 2 + 1 = 6 of 31 (19 %), at least 10 accounts.
    expect(sumIsSafe([even(1, 3), even(10, 2), even(8, 1)])).toBe(true);
  });
});

describe('complementary suppression (security)', () => {
  it('withholds the smallest safe part beside a lone withheld one, so city − shown recovers nothing', () => {
    const parts = [
      part('Boma', even(1, 3)),
      part('Kati', even(10, 2)),
      part('Mji', even(8, 1)),
      part('Pwani', even(20, 1)),
    ];
    // Smallest first: Mji (8), then Kati (20, before Pwani by name). Boma + Mji: at most 3 + 1 of 11
    // for one account → unsafe; + Kati: at most 6 of 31, 10 accounts → safe.
    expect([...withheldParts(parts)].sort()).toEqual(['Boma', 'Kati', 'Mji']);
    const total = { own: 0, market: 51, others: 39, topOther: 3 };
    expect(decideTable(total, parts)).toEqual({ totalShown: true, shownParts: new Set(['Pwani']) });
  });

  it('withholds nothing more when no part is withheld, or when the total is withheld', () => {
    const parts = [part('A', even(6, 1)), part('B', even(7, 1))];
    expect(decideTable(even(13, 1), parts)).toEqual({ totalShown: true, shownParts: new Set(['A', 'B']) });
    const lone = [part('A', even(1, 5)), part('B', even(7, 1))];
    expect(decideTable(even(4, 1), lone)).toEqual({ totalShown: false, shownParts: new Set(['B']) });
  });

  it('withholds the total instead when every part would go, and shows what the rule allows', () => {
    const parts = [part('A', even(1, 2)), part('B', even(10, 1))];
    // A alone is one account's; A + B is every part (the total itself): the total goes instead of B.
    expect(decideTable({ own: 0, market: 12, others: 11, topOther: 2 }, parts)).toEqual({
      totalShown: false,
      shownParts: new Set(['B']),
    });
  });

  it('counts listings without a neighbourhood among the withheld and never shows them', () => {
    const parts = [part('', even(2, 1), true), part('A', even(6, 1)), part('B', even(30, 1))];
    expect(decideTable(even(38, 1), parts)).toEqual({ totalShown: true, shownParts: new Set(['B']) });
  });

  it('decides each figure of a city and its neighbourhoods on its own (decideAreas)', () => {
    const row = (is_city: number, neighbourhood: string, a: Behind, r: Behind) => ({
      is_city,
      neighbourhood,
      own_active: a.own,
      market_active: a.market,
      others_active: a.others,
      top_other_active: a.topOther,
      own_rented: r.own,
      market_rented: r.market,
      others_rented: r.others,
      top_other_rented: r.topOther,
    });
    const decisions = decideAreas(
      [
        row(1, '', even(40, 1), { own: 0, market: 15, others: 13, topOther: 3 }),
        row(0, 'A', even(20, 1), even(1, 3)),
        row(0, 'B', even(20, 1), even(12, 1)),
      ],
      ['active', 'rented'] as const,
    );
    expect(decisions.active).toEqual({ totalShown: true, shownParts: new Set(['A', 'B']) });
    // A's rentals are one account's: B shown beside the city would give them away (and A + B bound
    // 4 of 15 for one account), so the city's goes and B shows.
    expect(decisions.rented).toEqual({ totalShown: false, shownParts: new Set(['B']) });
  });
});

describe("seasonality's parts: the months of whole quarters (happy)", () => {
  it('widens a window to the quarters it touches', () => {
    expect(wholeQuarters(['2025-02', '2025-03', '2025-04'])).toEqual([
      '2025-01',
      '2025-02',
      '2025-03',
      '2025-04',
      '2025-05',
      '2025-06',
    ]);
    expect(wholeQuarters(['2024-12'])).toEqual(['2024-10', '2024-11', '2024-12']);
    expect(wholeQuarters(['2024-12', '2025-01'])).toHaveLength(6);
  });
});
