// The OpenAPI document is exact: the patterns it gives for query parameters accept
// exactly what the server's parsers accept, so a generated "valid" value is never refused.
import { describe, expect, it } from 'vitest';
import { BOUNDS_PATTERN, parseBounds } from '../../analytics-api/geo/bounds.ts';
import { parseSeasonalityParams, SEASONALITY_MONTHS_PATTERN } from '../../analytics-api/params.ts';
import { MONTH_PATTERN, PERIOD_PATTERN, periodSchema } from '../../analytics-api/period.ts';

describe('OpenAPI parameter patterns', () => {
  it('happy: period pattern accepts exactly the quarters periodSchema accepts', () => {
    const pattern = new RegExp(PERIOD_PATTERN);
    for (let year = 0; year <= 9999; year++) {
      for (const q of [0, 1, 4, 5]) {
        const label = `${String(year).padStart(4, '0')}-Q${q}`;
        expect(pattern.test(label), label).toBe(periodSchema.safeParse(label).success);
      }
    }
  });

  it('error: bounds pattern refuses what the parser refuses for its grammar', () => {
    const pattern = new RegExp(BOUNDS_PATTERN);
    for (const raw of [
      '',
      '1,2,3',
      '1,2,3,4,5',
      'a,b,c,d',
      '39.1,-6.9,39.3,-6.7x',
      '1e3,2,3,4',
      '--1,2,3,4',
    ]) {
      expect(pattern.test(raw), raw).toBe(false);
      expect(parseBounds(raw).ok, raw).toBe(false);
    }
    for (const raw of [
      '39.1,-6.9,39.3,-6.7',
      ' 39.1 , -6.9 ,39.3,-6.7',
      '39,-7,39.5,-6.5',
      '39.,-7.0,39.5,-6.5',
    ]) {
      expect(pattern.test(raw), raw).toBe(true);
      expect(parseBounds(raw).ok, raw).toBe(true);
    }
  });

  it('happy: seasonality months pattern accepts exactly the lengths the parser accepts', () => {
    const pattern = new RegExp(SEASONALITY_MONTHS_PATTERN);
    const accepted = (months: string) => {
      try {
        parseSeasonalityParams({ city: 'arusha', type: 'house', months });
        return true;
      } catch {
        return false;
      }
    };
    for (let n = 0; n <= 1000; n++) {
      for (const months of [
        String(n),
        String(n).padStart(2, '0'),
        String(n).padStart(3, '0'),
        String(n).padStart(4, '0'),
      ]) {
        expect(pattern.test(months), months).toBe(accepted(months));
      }
    }
  });

  it('happy: seasonality end pattern accepts exactly the months the parser accepts', () => {
    const pattern = new RegExp(MONTH_PATTERN);
    const accepted = (end: string) => {
      try {
        parseSeasonalityParams({ city: 'arusha', type: 'house', end });
        return true;
      } catch {
        return false;
      }
    };
    for (let year = 0; year <= 9999; year += year < 1960 || year > 2110 ? 7 : 1) {
      for (let month = 0; month <= 13; month++) {
        const end = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
        expect(pattern.test(end), end).toBe(accepted(end));
      }
    }
  });
});
