import { describe, expect, it } from 'vitest';
import dataset from '../../infra/locations/locations.json' with { type: 'json' };
import { citySlugs } from '../../common/domain/cities.ts';
import {
  allLocations,
  distanceKm,
  locationById,
  neighbourhoodsOf,
  resolveByAddress,
  resolveById,
  resolveByPoint,
} from '../../common/domain/locations.ts';

describe('locations dataset', () => {
  it('happy: covers every city of spec 4.3 with 6-15 neighbourhoods and unique UUID ids', () => {
    for (const city of citySlugs) {
      const count = neighbourhoodsOf(city).length;
      expect(count, city).toBeGreaterThanOrEqual(6);
      expect(count, city).toBeLessThanOrEqual(15);
    }
    const ids = allLocations.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('happy: every neighbourhood centre resolves back to itself by point', () => {
    for (const l of allLocations.filter((x) => x.kind === 'neighbourhood')) {
      expect(resolveByPoint(l.latitude, l.longitude)?.neighbourhood?.id, l.name).toBe(l.id);
    }
  });

  it('happy: ids resolve case-insensitively; a city id resolves to the city only', () => {
    const masaki = neighbourhoodsOf('dar_es_salaam').find((n) => n.name === 'Masaki')!;
    expect(locationById(masaki.id.toUpperCase())?.name).toBe('Masaki');
    const arusha = allLocations.find((l) => l.kind === 'city' && l.city === 'arusha')!;
    expect(resolveById(arusha.id)).toEqual({ city: 'arusha' });
    expect(resolveById('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });

  it('happy: addresses name a neighbourhood, a city, or both', () => {
    expect(resolveByAddress('Plot 4, Oyster-Bay, Dar es Salaam')?.neighbourhood?.name).toBe('Oyster Bay');
    expect(resolveByAddress('near the Njiro roundabout')).toMatchObject({ city: 'arusha' });
    expect(resolveByAddress('Somewhere in MWANZA')).toEqual({ city: 'mwanza' });
    expect(resolveByAddress('Mbezi Beach, DSM')?.neighbourhood?.name).toBe('Mbezi Beach');
  });

  it('error: unknown places and points far from any city resolve to nothing', () => {
    expect(resolveByAddress('10 Downing Street, London')).toBeUndefined();
    expect(resolveByAddress('')).toBeUndefined();
    expect(resolveByPoint(0, 0)).toBeUndefined();
    expect(resolveByPoint(Number.NaN, 39)).toBeUndefined();
  });

  it('happy: a point inside a city but between neighbourhoods keeps the city', () => {
    // Dar es Salaam, ~20 km west of the centre: no neighbourhood within 1.5 radii.
    expect(resolveByPoint(-6.85, 39.1)).toEqual({ city: 'dar_es_salaam' });
  });

  it('happy: the pruned search finds what a full scan of every location finds', () => {
    // The rule of resolveByPoint written as plainly as possible: every city, every neighbourhood.
    const fullScan = (lat: number, lng: number) => {
      const cities = allLocations.filter((l) => l.kind === 'city');
      let city: (typeof cities)[number] | undefined;
      for (const c of cities) {
        const km = distanceKm(lat, lng, c.latitude, c.longitude);
        if (km <= c.radius_km && (!city || km < distanceKm(lat, lng, city.latitude, city.longitude)))
          city = c;
      }
      if (!city) return undefined;
      let best: (typeof cities)[number] | undefined;
      let bestScore = 1.5;
      for (const n of allLocations) {
        if (n.kind !== 'neighbourhood' || n.city !== city.city) continue;
        const score = distanceKm(lat, lng, n.latitude, n.longitude) / n.radius_km;
        if (score <= bestScore) [best, bestScore] = [n, score];
      }
      return best ? { city: city.city, neighbourhood: best } : { city: city.city };
    };
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const place of allLocations) {
      for (let i = 0; i < 200; i++) {
        const lat = place.latitude + (random() - 0.5) * 0.4;
        const lng = place.longitude + (random() - 0.5) * 0.4;
        expect(resolveByPoint(lat, lng)).toEqual(fullScan(lat, lng));
      }
    }
  });

  it('happy: addresses resolve as if every city and neighbourhood name were tried', () => {
    // The rule written plainly over the dataset file: every phrase tried, longest first.
    const phrase = (text: string) =>
      ` ${text
        .toLowerCase()
        .normalize('NFD')
        .replace(/[^a-z0-9]+/g, ' ')
        .trim()} `;
    const byLength = <T extends { phrase: string }>(list: T[]) =>
      list.sort((a, b) => b.phrase.length - a.phrase.length);
    const cities = byLength(
      dataset.cities.flatMap((c) =>
        [c.name, c.slug.replace(/_/g, ' '), ...c.aliases].map((name) => ({
          city: c.slug,
          phrase: phrase(name),
        })),
      ),
    );
    const neighbourhoods = byLength(
      allLocations
        .filter((l) => l.kind === 'neighbourhood')
        .map((l) => ({ location: l, phrase: phrase(l.name) })),
    );
    const fullScan = (text: string) => {
      const words = phrase(text);
      if (words.trim() === '') return undefined;
      const city = cities.find((c) => words.includes(c.phrase))?.city;
      const matches = neighbourhoods.filter((n) => words.includes(n.phrase)).map((n) => n.location);
      const neighbourhood = city ? matches.find((n) => n.city === city) : matches[0];
      if (neighbourhood) return { city: neighbourhood.city, neighbourhood };
      return city ? { city } : undefined;
    };
    const names = [...cities, ...neighbourhoods].map((p) => p.phrase.trim());
    let seed = 11;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
    for (let i = 0; i < 3_000; i++) {
      const parts = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        random() < 0.6
          ? pick(names)
          : pick(['Plot 12', 'road', 'near the market', 'beach', 'bay', 'Street 5', '']),
      );
      const text = parts.join(random() < 0.5 ? ', ' : ' ');
      expect(resolveByAddress(text)).toEqual(fullScan(text));
    }
  });
});
