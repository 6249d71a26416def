// The documented analytics rules (analytics-api/rules.ts, period.ts, params.ts) on their own.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../common/errors.ts';
import { parseHeatmapParams, parsePricingParams } from '../../analytics-api/params.ts';
import {
  nextQuarter,
  periodLabel,
  previousQuarter,
  quarterOf,
  quarterStart,
} from '../../analytics-api/period.ts';
import { demandScore, TREND_MIN_LISTINGS, trendOf } from '../../analytics-api/rules.ts';

describe('trend rule', () => {
  const enough = TREND_MIN_LISTINGS;
  it('happy: is rising or falling only beyond ±5 % of the previous median', () => {
    expect(trendOf({ median: 106, count: enough }, { median: 100, count: enough })).toBe('rising');
    expect(trendOf({ median: 105, count: enough }, { median: 100, count: enough })).toBe('stable');
    expect(trendOf({ median: 95, count: enough }, { median: 100, count: enough })).toBe('stable');
    expect(trendOf({ median: 94, count: enough }, { median: 100, count: enough })).toBe('falling');
  });
  it('error: says insufficient_data below the minimum sample in either quarter', () => {
    expect(trendOf({ median: 200, count: enough - 1 }, { median: 100, count: enough })).toBe(
      'insufficient_data',
    );
    expect(trendOf({ median: 200, count: enough }, { median: 100, count: enough - 1 })).toBe(
      'insufficient_data',
    );
    expect(trendOf({ median: 200, count: enough }, { median: 0, count: enough })).toBe('insufficient_data');
  });
});

describe('demand score', () => {
  it('happy: is views per listing relative to the market', () => {
    expect(demandScore({ views: 20, listings: 2 }, { views: 50, listings: 10 })).toBe(2);
    expect(demandScore({ views: 0, listings: 2 }, { views: 50, listings: 10 })).toBe(0);
  });
  it('error: is 0 when the market has no views or no listings', () => {
    expect(demandScore({ views: 3, listings: 1 }, { views: 0, listings: 10 })).toBe(0);
    expect(demandScore({ views: 3, listings: 1 }, { views: 3, listings: 0 })).toBe(0);
  });
});

describe('periods', () => {
  it('happy: maps dates to UTC quarters and steps across years', () => {
    expect(periodLabel(quarterOf(new Date('2024-03-31T23:59:59Z')))).toBe('2024-Q1');
    expect(periodLabel(quarterOf(new Date('2024-04-01T00:00:00Z')))).toBe('2024-Q2');
    expect(periodLabel(previousQuarter({ year: 2024, quarter: 1 }))).toBe('2023-Q4');
    expect(periodLabel(nextQuarter({ year: 2024, quarter: 4 }))).toBe('2025-Q1');
    expect(quarterStart({ year: 2024, quarter: 4 })).toBe('2024-10-01');
  });
});

describe('parameter validation', () => {
  const fails = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error instanceof AppError && error.status === 400;
    }
    return false;
  };
  it('happy: accepts slugs, types and periods; defaults the period to the current quarter', () => {
    const now = new Date('2025-08-01T00:00:00Z');
    expect(parsePricingParams({ city: 'dar_es_salaam', type: 'land' }, now)).toEqual({
      city: 'dar_es_salaam',
      type: 'land',
      period: { year: 2025, quarter: 3 },
    });
    expect(parseHeatmapParams({ bounds: '39.2,-6.9,39.3,-6.7', period: '2024-Q1' }, now)).toMatchObject({
      bounds: { west: 39.2, south: -6.9, east: 39.3, north: -6.7 },
      period: { year: 2024, quarter: 1 },
    });
  });
  it('error, security: refuses anything else with a 400', () => {
    for (const query of [
      { city: 'Dar es Salaam', type: 'land' },
      { city: 'dar_es_salaam', type: 'Land' },
      { city: ['arusha', 'tanga'], type: 'land' },
      { city: 'arusha', type: 'land', period: '2024-Q1; DROP TABLE listings' },
      { city: 'arusha', type: 'land', period: '1970-Q1' },
    ]) {
      expect(
        fails(() => parsePricingParams(query)),
        JSON.stringify(query),
      ).toBe(true);
    }
    for (const bounds of [
      '39.2,-6.9,39.3',
      '39.2,-6.9,39.3,x',
      '1e1,0,2e1,1',
      '39.3,-6.9,39.2,-6.7',
      '29,-12,41,-1',
    ]) {
      expect(
        fails(() => parseHeatmapParams({ bounds })),
        bounds,
      ).toBe(true);
    }
  });
});
