// The patterns of the query parameters say exactly the documented rules (years 1971–2100, 1–60
// months written with up to three digits …): the server parses with these same patterns
// (analytics-api/params.ts), so a value the document calls valid is never refused, nor the reverse.
import { describe, expect, it } from 'vitest';
import { BOUNDS_PATTERN, parseBounds } from '../../analytics-api/geo/bounds.ts';
import { parseSeasonalityParams, SEASONALITY_MONTHS_PATTERN } from '../../analytics-api/params.ts';
import { MAX_YEAR, MIN_YEAR, MONTH_PATTERN, PERIOD_PATTERN } from '../../analytics-api/period.ts';

/** Whether the seasonality route's parser takes these parameters (besides a valid city and type). */
function seasonalityAccepts(params: { months?: string; end?: string }): boolean {
  try {
    parseSeasonalityParams({ city: 'arusha', type: 'house', ...params });
    return true;
  } catch {
    return false;
  }
}

describe('OpenAPI parameter patterns', () => {
  it('happy: period pattern accepts exactly the quarters of the years 1971–2100', () => {
    const pattern = new RegExp(PERIOD_PATTERN);
    for (let year = 0; year <= 9999; year++) {
      for (const q of [0, 1, 4, 5]) {
        const label = `${String(year).padStart(4, '0')}-Q${q}`;
        const valid = year >= MIN_YEAR && year <= MAX_YEAR && q >= 1 && q <= 4;
        expect(pattern.test(label), label).toBe(valid);
      }
    }
  });

  it('error: bounds pattern refuses what the parser refuses for its grammar', () => {
    const pattern = new RegExp(BOUNDS_PATTERN);
    // The pattern and the parser agree on every example: both refuse it or both accept it.
    const agree = (raw: string, ok: boolean) => {
      expect(pattern.test(raw), raw).toBe(ok);
      expect(parseBounds(raw).ok, raw).toBe(ok);
    };
    for (const raw of ['', '1,2,3', '1,2,3,4,5', 'a,b,c,d', '39.1,-6.9,39.3,-6.7x', '1e3,2,3,4', '--1,2,3,4'])
      agree(raw, false);
    for (const raw of [
      '39.1,-6.9,39.3,-6.7',
      ' 39.1 , -6.9 ,39.3,-6.7',
      '39,-7,39.5,-6.5',
      '39.,-7.0,39.5,-6.5',
    ])
      agree(raw, true);
  });

  it('happy: seasonality months pattern accepts exactly 1–60 written with up to three digits', () => {
    const pattern = new RegExp(SEASONALITY_MONTHS_PATTERN);
    for (let n = 0; n <= 1000; n++) {
      for (const months of [
        String(n),
        String(n).padStart(2, '0'),
        String(n).padStart(3, '0'),
        String(n).padStart(4, '0'),
      ]) {
        const valid = /^\d{1,3}$/.test(months) && n >= 1 && n <= 60;
        expect(pattern.test(months), months).toBe(valid);
        expect(seasonalityAccepts({ months }), months).toBe(valid);
      }
    }
  });

  it('happy: seasonality end pattern accepts exactly the months of the years 1971–2100', () => {
    const pattern = new RegExp(MONTH_PATTERN);
    for (let year = 0; year <= 9999; year += year < 1960 || year > 2110 ? 7 : 1) {
      for (let month = 0; month <= 13; month++) {
        const end = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
        const valid = year >= MIN_YEAR && year <= MAX_YEAR && month >= 1 && month <= 12;
        expect(pattern.test(end), end).toBe(valid);
        expect(seasonalityAccepts({ end }), end).toBe(valid);
      }
    }
  });
});
