// The rent estimate's method (common/estimate/method.ts): the widening, the similarity filter, the
// weighted median and the size adjustment, on hand-made comparables; and its query parameters.
import { describe, expect, it } from 'vitest';
import { parseEstimateParams } from '../../analytics-api/estimate-params.ts';
import type { AppError } from '../../common/errors.ts';
import {
  adjustedRent,
  bedroomClass,
  estimateRent,
  isSimilar,
  MAX_COMPARABLES,
  mergeNearest,
  SEARCH_STEPS,
  selectComparables,
  weightedQuantile,
  type Candidate,
  type Subject,
} from '../../common/estimate/method.ts';

const subject: Subject = { latitude: -6.8, longitude: 39.28, bedrooms: 2, bathrooms: 1, areaSqm: 80 };

let tie = 0;
function candidate(distanceKm: number, ageDays: number, overrides: Partial<Candidate> = {}): Candidate {
  tie++;
  return {
    listingId: `c${tie}`,
    listedAt: 1_800_000_000 - Math.round(ageDays * 86_400),
    distanceKm,
    ageDays,
    bedrooms: 2,
    bathrooms: 1,
    areaSqm: 80,
    priceTzs: 1_000_000,
    tieHi: 0,
    tieLo: tie,
    ...overrides,
  };
}
const sorted = (list: Candidate[]) => [...list].sort((a, b) => a.distanceKm - b.distanceKm);

describe('search steps', () => {
  it('happy: widen radius first (1, 2, 5, 10 km over 90 days), then age (365 days)', () => {
    expect(SEARCH_STEPS.map((s) => `${s.radiusKm}/${s.maxAgeDays}`)).toEqual([
      '1/90',
      '2/90',
      '5/90',
      '10/90',
      '1/365',
      '2/365',
      '5/365',
      '10/365',
    ]);
  });

  it('happy: take the first step with 5 comparables and use its nearest 15', () => {
    const recent = sorted([0.5, 0.8, 1.2, 1.5, 1.9, 3, 4].map((d) => candidate(d, 10)));
    const found = selectComparables({ recent, all: recent, searchedKm: 10 });
    expect(found.kind).toBe('found');
    if (found.kind !== 'found') return;
    expect(found.step).toEqual({ radiusKm: 2, maxAgeDays: 90 });
    expect(found.used.map((c) => c.distanceKm)).toEqual([0.5, 0.8, 1.2, 1.5, 1.9]);

    const many = sorted(Array.from({ length: 20 }, (_, i) => candidate(0.01 * (i + 1), 5)));
    const capped = selectComparables({ recent: many.slice(0, MAX_COMPARABLES), searchedKm: 2 });
    expect(capped.kind === 'found' && capped.used.length).toBe(MAX_COMPARABLES);
  });

  it('edge: ask for a wider search, then for older listings, before giving up', () => {
    const recent = sorted([0.5, 1.5, 4, 6].map((d) => candidate(d, 10)));
    expect(selectComparables({ recent, searchedKm: 2 }).kind).toBe('needs_wider');
    expect(selectComparables({ recent, searchedKm: 10 }).kind).toBe('needs_older');
    const older = sorted([0.2, 0.3, 0.4, 0.6, 0.9].map((d) => candidate(d, 200)));
    const all = mergeNearest(recent, older);
    const found = selectComparables({ recent, all, searchedKm: 10 });
    expect(found.kind === 'found' && found.step).toEqual({ radiusKm: 1, maxAgeDays: 365 });
  });

  it('error: report what every step found when none holds 5', () => {
    const recent = sorted([0.5, 1.5, 4, 6].map((d) => candidate(d, 10)));
    const result = selectComparables({ recent, all: recent, searchedKm: 10 });
    expect(result).toEqual({
      kind: 'insufficient',
      searched: [1, 2, 5, 10, 1, 2, 5, 10].map((radius_km, i) => ({
        radius_km,
        max_age_days: i < 4 ? 90 : 365,
        comparables: [1, 2, 3, 4][i % 4],
      })),
    });
  });
});

describe('similarity', () => {
  it('happy: keeps ±1 bedroom and floor areas within 1.5×', () => {
    expect(isSimilar(subject, { bedrooms: 3, areaSqm: 120 })).toBe(true);
    expect(isSimilar(subject, { bedrooms: 1, areaSqm: 53.4 })).toBe(true);
    expect(isSimilar(subject, { bedrooms: 2, areaSqm: null })).toBe(true);
  });

  it('edge: drops other bedroom counts, unknown bedrooms and other sizes', () => {
    expect(isSimilar(subject, { bedrooms: 4, areaSqm: 80 })).toBe(false);
    expect(isSimilar(subject, { bedrooms: null, areaSqm: 80 })).toBe(false);
    expect(isSimilar(subject, { bedrooms: 2, areaSqm: 121 })).toBe(false);
    expect(isSimilar({ ...subject, bedrooms: null, areaSqm: null }, { bedrooms: 9, areaSqm: 5 })).toBe(true);
  });

  it('happy: adjusts a rent to the subject’s size: floor area when both are known, else bedrooms', () => {
    expect(adjustedRent(subject, candidate(1, 1, { areaSqm: 20, priceTzs: 500_000 }))).toBeCloseTo(1_000_000);
    const noArea = { ...subject, areaSqm: null };
    expect(adjustedRent(noArea, candidate(1, 1, { bedrooms: 3, priceTzs: 1_150_000 }))).toBeCloseTo(
      1_000_000,
    );
    expect(adjustedRent(noArea, candidate(1, 1, { bedrooms: null, priceTzs: 700_000 }))).toBe(700_000);
  });
});

describe('estimate', () => {
  it('happy: is the price of identical comparables, whatever their weights', () => {
    const used = [0.1, 0.3, 0.5, 0.7, 0.9].map((d, i) => candidate(d, i * 20));
    const point = estimateRent(subject, used, { radiusKm: 1, maxAgeDays: 90 });
    expect(point.rentTzs).toBe(1_000_000);
    expect(point.comparables.every((c) => c.similarity === 1)).toBe(true);
  });

  it('happy: follows the nearer, fresher, more similar comparables', () => {
    const used = [
      candidate(0.1, 1, { priceTzs: 900_000 }),
      candidate(0.1, 1, { priceTzs: 910_000 }),
      candidate(0.2, 2, { priceTzs: 920_000 }),
      candidate(0.95, 80, { priceTzs: 2_000_000, bedrooms: 3, areaSqm: null }),
      candidate(0.95, 80, { priceTzs: 2_100_000, bedrooms: 3, areaSqm: null }),
    ];
    const point = estimateRent(subject, used, { radiusKm: 1, maxAgeDays: 90 });
    expect(point.rentTzs).toBe(910_000);
  });

  it('edge: weighted quantiles: lower middle, or the mean on an exact boundary', () => {
    expect(
      weightedQuantile(
        [1, 2, 3].map((value) => ({ value, weight: 1 })),
        0.5,
      ),
    ).toBe(2);
    expect(
      weightedQuantile(
        [1, 2].map((value) => ({ value, weight: 1 })),
        0.5,
      ),
    ).toBe(1.5);
    expect(
      weightedQuantile(
        [
          { value: 5, weight: 3 },
          { value: 1, weight: 1 },
        ],
        0.5,
      ),
    ).toBe(5);
  });

  it('edge: names bedroom classes of the accuracy segments', () => {
    expect([null, 0, 4, 5, 12].map(bedroomClass)).toEqual(['unknown', '0', '4', '5+', '5+']);
  });
});

describe('estimate parameters', () => {
  it('happy: accept numbers however clients print doubles, within the documented ranges', () => {
    for (const [lat, lng] of [
      ['1e-05', '-0.0'],
      ['-90', '180'],
      ['89.99999999999999', '-179.99999999999997'],
      ['.5', '5.'],
      ['1E+1', '+39.28'],
    ]) {
      const p = parseEstimateParams({ lat, lng, type: 'room', area_sqm: '999999.9999999999', bedrooms: '0' });
      expect([p.latitude, p.longitude]).toEqual([Number(lat), Number(lng)]);
    }
    expect(parseEstimateParams({ lat: '-6.8', lng: '39.28', type: 'house' })).toEqual({
      latitude: -6.8,
      longitude: 39.28,
      type: 'house',
      bedrooms: null,
      bathrooms: null,
      areaSqm: null,
      currency: 'TZS',
    });
  });

  it('error: refuse what the document refuses, naming each parameter', () => {
    const problems = (query: Record<string, string>) => {
      try {
        parseEstimateParams(query);
        return [];
      } catch (error) {
        return ((error as AppError).options.details as { parameter: string }[]).map((d) => d.parameter);
      }
    };
    expect(problems({ lng: '39', type: 'room' })).toEqual(['lat']);
    expect(problems({ lat: '90.00000000000001', lng: '-180.1', type: 'villa' })).toEqual([
      'lat',
      'lng',
      'type',
    ]);
    expect(
      problems({ lat: '0', lng: '0', type: 'room', bedrooms: '1.5', bathrooms: '1001', area_sqm: '0.99' }),
    ).toEqual(['bedrooms', 'bathrooms', 'area_sqm']);
    expect(problems({ lat: 'NaN', lng: 'Infinity', type: 'room', currency: 'EUR' })).toEqual([
      'lat',
      'lng',
      'currency',
    ]);
  });
});
