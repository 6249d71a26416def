// GET /analytics/seasonality against two known years of Bagamoyo apartments (lifecycle-fixtures.ts):
// every month lists two one-bedroom flats and one two-bedroom flat whose rents follow the month
// of the year, June and July add three cheap studios (a shift in what is listed, which the fixed
// bedroom weights must not read as a fall in rents), March of the first year adds ten three-bedroom
// flats rented within ten days. Eight accounts share the market evenly (each month every one lists a
// one-bedroom flat rented after three days, and the other listings go round them), so no month's
// figure is withheld by the suppression rules. The expected series, weights and index are computed
// below from the listing specs, following the documented rules, and compared exactly.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestKey, type TestKey } from '../support/api.ts';
import {
  analytics,
  buildTimeline,
  claimLifecycleYear,
  daysOf,
  insertViews,
  type TimelineListing,
} from '../support/lifecycle-fixtures.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';

const scope = { city: 'bagamoyo', type: 'apartment', isTest: 0 as const };

interface Spec {
  month: string; // YYYY-MM
  bedrooms: number;
  price: number;
  listed: string; // YYYY-MM-DD HH:MM:SS
  rentedAfterDays?: number;
  account: string;
}

/** The accounts of the market. */
const runId = randomUUID().slice(0, 8);
const crowd = Array.from({ length: 8 }, (_, i) => `seasonality-crowd-${i}-${runId}`);

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const round2 = (v: number) => Math.round(v * 100) / 100;
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const round4 = (v: number) => Math.round(v * 10_000) / 10_000;

describe('GET /analytics/seasonality', () => {
  let year: number;
  let key: TestKey;
  const specs: Spec[] = [];
  const views = new Map<string, number>();

  beforeAll(async () => {
    year = await claimLifecycleYear(scope, 2);
    key = await createTestKey();
    for (const y of [year, year + 1]) {
      for (let moy = 1; moy <= 12; moy++) {
        const month = `${y}-${String(moy).padStart(2, '0')}`;
        const step = 10_000 * (moy - 1);
        // The k-th other listing of the month goes to the (month + k)-th account.
        let k = 0;
        const next = () => crowd[(moy + k++) % crowd.length]!;
        specs.push(
          { month, bedrooms: 1, price: 300_000 + step, listed: `${month}-01 06:00:00`, account: next() },
          { month, bedrooms: 1, price: 320_000 + step, listed: `${month}-02 06:00:00`, account: next() },
          {
            month,
            bedrooms: 2,
            price: 500_000 + step,
            listed: `${month}-01 00:00:00`,
            rentedAfterDays: 5 + moy,
            account: next(),
          },
          ...crowd.map((account) => ({
            month,
            bedrooms: 1,
            price: 400_000 + step,
            listed: `${month}-01 00:00:00`,
            rentedAfterDays: 3,
            account,
          })),
        );
        if (moy === 6 || moy === 7) {
          for (let i = 0; i < 3; i++)
            specs.push({
              month,
              bedrooms: 0,
              price: 200_000,
              listed: `${month}-10 00:00:00`,
              account: next(),
            });
        }
        if (y === year && moy === 3) {
          k = 0;
          for (let d = 1; d <= 10; d++) {
            specs.push({
              month,
              bedrooms: 3,
              price: 700_000,
              listed: `${month}-01 00:00:00`,
              rentedAfterDays: d,
              account: next(),
            });
          }
        }
        views.set(month, crowd.length * moy);
      }
    }
    const at = (listed: string, days: number) =>
      new Date(Date.parse(`${listed.replace(' ', 'T')}Z`) + days * DAY_MS)
        .toISOString()
        .replace('T', ' ')
        .slice(0, 19);
    const listings: TimelineListing[] = specs.map((s) => ({
      account: s.account,
      neighbourhood: 'Dunda',
      listed_at: s.listed,
      price: s.price,
      bedrooms: s.bedrooms,
      changes: s.rentedAfterDays ? [{ status: 'rented', at: at(s.listed, s.rentedAfterDays) }] : [],
    }));
    await buildTimeline(scope, listings, specs.filter((s) => s.rentedAfterDays).length);
    // Each account's listings get `month of the year` views a month.
    await insertViews(
      [...views].flatMap(([month, count]) =>
        crowd.map((account) => ({
          is_test: 0 as const,
          viewed_at: `${month}-15 12:00:00`,
          property_type: 'apartment',
          city: 'bagamoyo',
          neighbourhood: 'Dunda',
          listing_account_id: account,
          count: count / crowd.length,
        })),
      ),
    );
  });

  /** The documented series for a window of months, computed from the specs. */
  function expectedMonths(window: string[]) {
    const inWindow = specs.filter((s) => window.includes(s.month));
    const classOf = (b: number) => (b >= 4 ? 4 : b);
    const weights = new Map<number, number>();
    for (const s of inWindow) weights.set(classOf(s.bedrooms), (weights.get(classOf(s.bedrooms)) ?? 0) + 1);
    for (const [c, n] of weights) weights.set(c, n / inWindow.length);
    const spells = specs.map((s) => {
      const from = s.listed.slice(0, 10);
      const to = s.rentedAfterDays
        ? new Date(Date.parse(`${s.listed.replace(' ', 'T')}Z`) + s.rentedAfterDays * DAY_MS)
            .toISOString()
            .slice(0, 10)
        : null;
      return { from, to, month: to?.slice(0, 7), days: s.rentedAfterDays };
    });
    return {
      weights,
      months: window.map((month) => {
        const listed = specs.filter((s) => s.month === month);
        const classes = [...new Set(listed.map((s) => classOf(s.bedrooms)))];
        let weighted = 0;
        let weight = 0;
        for (const c of classes) {
          weighted +=
            weights.get(c)! * median(listed.filter((s) => classOf(s.bedrooms) === c).map((s) => s.price));
          weight += weights.get(c)!;
        }
        const days = daysOf(
          `${month}-01`,
          new Date(Date.UTC(+month.slice(0, 4), +month.slice(5, 7), 0)).toISOString().slice(0, 10),
        );
        const stockDays = days.reduce(
          (sum, day) => sum + spells.filter((s) => s.from <= day && (s.to === null || day < s.to)).length,
          0,
        );
        const average = stockDays / days.length;
        const rentals = spells.filter((s) => s.month === month).map((s) => s.days!);
        return {
          month,
          median_price_tzs: listed.length ? round2(weighted / weight) : null,
          raw_median_price_tzs: listed.length ? median(listed.map((s) => s.price)) : null,
          listed: listed.length,
          new_listings: listed.length,
          views: views.get(month) ?? 0,
          average_active: round2(average),
          views_per_active_listing: average > 0 ? round3((views.get(month) ?? 0) / average) : null,
          rented: rentals.length,
          median_days_to_rent: rentals.length >= 10 ? median(rentals) : null,
          suppressed: false,
          withheld: [],
        };
      }),
    };
  }

  /** Month-of-year index: blocks of 12 counted back from the end, ratio to the block mean, mean per calendar month. */
  function expectedIndex(series: { month: string; value: number | null }[], years: number) {
    const ratios: number[][] = Array.from({ length: 12 }, () => []);
    for (let b = 0; b < years; b++) {
      const block = series.slice(series.length - 12 * (b + 1), series.length - 12 * b);
      const present = block.map((m) => m.value).filter((v): v is number => v !== null);
      const mean = present.reduce((a, c) => a + c, 0) / present.length;
      for (const m of block) if (m.value !== null) ratios[Number(m.month.slice(5)) - 1]!.push(m.value / mean);
    }
    return ratios.map((r) => (r.length ? round3(r.reduce((a, c) => a + c, 0) / r.length) : null));
  }

  const monthsOf = (first: number, count: number) =>
    Array.from({ length: count }, (_, i) => {
      const d = new Date(Date.UTC(year, first - 1 + i, 1));
      return d.toISOString().slice(0, 7);
    });

  it('happy: builds the series and, with 24 months of history, an ok index', async () => {
    const body = await analytics(
      key.key,
      `seasonality?city=bagamoyo&type=apartment&months=24&end=${year + 1}-12`,
    );
    const window = monthsOf(1, 24);
    const expected = expectedMonths(window);
    expect(body.status).toBe('ok');
    expect(body.history_months).toBe(24);
    expect(body.months).toEqual(expected.months);
    // 240 one-bedroom, 24 two-bedroom, 12 studios, 10 three-bedroom: fixed weights over the window.
    expect(body.mix_weights).toEqual([
      { bedrooms: '0', weight: round4(12 / 286) },
      { bedrooms: '1', weight: round4(240 / 286) },
      { bedrooms: '2', weight: round4(24 / 286) },
      { bedrooms: '3', weight: round4(10 / 286) },
    ]);
    const prices = expectedIndex(
      expected.months.map((m) => ({ month: m.month, value: m.median_price_tzs })),
      2,
    );
    const fresh = expectedIndex(
      expected.months.map((m) => ({ month: m.month, value: m.new_listings })),
      2,
    );
    expect(body.month_of_year_index).toEqual(
      prices.map((p, i) => ({ month: i + 1, price_index: p, new_listings_index: fresh[i], years: 2 })),
    );
    // The studios of June weigh in the mix-adjusted median at their fixed weight only. June, second
    // year: 14 listed, raw median 450,000 (7th and 8th of 200k ×3, 350k, 370k, 450k ×8, 550k); the
    // 1-bedroom median is 450,000 too, the 2-bedroom 550,000, the studios 200,000.
    const june = body.months.find((m: { month: string }) => m.month === `${year + 1}-06`);
    expect(june.raw_median_price_tzs).toBe(450_000);
    expect(june.median_price_tzs).toBe(round2((240 * 450_000 + 24 * 550_000 + 12 * 200_000) / 276));
    // March of the first year: 19 rentals (8 after 3 days, the 2-bedroom after 8, 3-bedrooms after
    // 1…10): 1, 2, 3 ×9, 4, … → the 10th is 3.
    const march = body.months.find((m: { month: string }) => m.month === `${year}-03`);
    expect([march.rented, march.median_days_to_rent]).toEqual([19, 3]);
  });

  it('is provisional with 12–23 months and insufficient under 12 (no index)', async () => {
    const provisional = await analytics(
      key.key,
      `seasonality?city=bagamoyo&type=apartment&months=18&end=${year + 1}-06`,
    );
    expect(provisional.status).toBe('provisional');
    expect(provisional.history_months).toBe(18);
    const expected = expectedMonths(monthsOf(1, 18));
    expect(provisional.months).toEqual(expected.months);
    expect(provisional.month_of_year_index.map((m: { price_index: number | null }) => m.price_index)).toEqual(
      expectedIndex(
        expected.months.map((m) => ({ month: m.month, value: m.median_price_tzs })),
        1,
      ),
    );
    // 24 months requested, but the history starts in January of the first year: 10 months.
    const short = await analytics(key.key, `seasonality?city=bagamoyo&type=apartment&end=${year}-10`);
    expect(short.status).toBe('insufficient_history');
    expect(short.history_months).toBe(10);
    expect(short.month_of_year_index).toBeNull();
    expect(short.months).toHaveLength(24);
    expect(short.months.slice(14)).toEqual(expectedMonths(monthsOf(1, 10)).months);
    // Before the history nobody is behind the figures: withheld, like any figure without 5 other accounts.
    expect(short.months[0]).toMatchObject({ listed: null, median_price_tzs: null, average_active: null });
  });

  it('error, security: validates months and end, and needs analytics:read', async () => {
    for (const query of ['months=0', 'months=61', 'months=x', 'end=2024-13', 'end=24-01']) {
      const res = await api('GET', `/api/v1/analytics/seasonality?city=bagamoyo&type=apartment&${query}`, {
        key: key.key,
      });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_parameter');
    }
    const pro = await createTestKey({ tier: 'pro' });
    expect(
      (await api('GET', '/api/v1/analytics/seasonality?city=bagamoyo&type=apartment', { key: pro.key }))
        .status,
    ).toBe(403);
  });
});
