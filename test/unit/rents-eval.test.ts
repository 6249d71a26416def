// The real-rent evaluation's conversion (eval/rents): a city moved onto Dar es Salaam keeps the
// distances between its listings, the Polish snapshots become one row per listing dated by its
// first snapshot, and the converted CSV reads back as written.
import { describe, expect, it } from 'vitest';
import { cityLocation } from '../../common/domain/locations.ts';
import { distanceKm } from '../../common/estimate/method.ts';
import { CSV_HEADER, moveOntoDar, parseCsv, toCsvLine, type RentRow } from '../../eval/rents/shape.ts';
import { rentSources } from '../../eval/rents/sources.ts';

const row = (id: string, latitude: number, longitude: number): RentRow => ({
  id,
  listedAt: Date.UTC(2024, 5, 3) / 1000,
  latitude,
  longitude,
  type: 'apartment',
  bedrooms: 2,
  bathrooms: null,
  areaSqm: 48.5,
  rent: 3900,
});

describe('real rents', () => {
  it('happy: moves a city onto Dar es Salaam as a block, keeping distances', () => {
    // Warsaw-like spread: 52° N, ~15 km across.
    const city = [
      row('a', 52.23, 21.01),
      row('b', 52.3, 21.1),
      row('c', 52.16, 20.9),
      row('d', 52.25, 20.95),
    ];
    const moved = moveOntoDar(city);
    const dar = cityLocation('dar_es_salaam')!;
    expect(distanceKm(moved[0]!.latitude, moved[0]!.longitude, dar.latitude, dar.longitude)).toBeLessThan(5);
    for (let i = 0; i < city.length; i++) {
      for (let j = i + 1; j < city.length; j++) {
        const before = distanceKm(
          city[i]!.latitude,
          city[i]!.longitude,
          city[j]!.latitude,
          city[j]!.longitude,
        );
        const after = distanceKm(
          moved[i]!.latitude,
          moved[i]!.longitude,
          moved[j]!.latitude,
          moved[j]!.longitude,
        );
        expect(Math.abs(after - before) / before).toBeLessThan(0.01);
      }
    }
  });

  it('happy: dates a Polish listing by its first monthly snapshot, rooms − 1 bedrooms', () => {
    const source = rentSources.find((s) => s.name === 'krakow')!;
    const header = 'id,city,type,squareMeters,rooms,latitude,longitude,price';
    const rows = source.convert([
      {
        path: 'x/apartments_rent_pl_2024_02.csv',
        text: `${header}\nk1,krakow,blockOfFlats,50.0,3.0,50.06,19.94,3500\nw1,warszawa,,40,2,52.2,21.0,3000\n`,
      },
      {
        path: 'x/apartments_rent_pl_2024_03.csv',
        text: `${header}\nk1,krakow,blockOfFlats,50.0,3.0,50.06,19.94,3600\nk2,krakow,,25,1,50.07,19.95,2200\nk3,krakow,,30,1,50.07,19.95,0\n`,
      },
    ]);
    expect(rows.map((r) => r.id)).toEqual(['k1', 'k2']); // another city, and no price, left out
    const [k1, k2] = rows;
    expect(new Date(k1!.listedAt * 1000).toISOString().slice(0, 7)).toBe('2024-02');
    expect(k1).toMatchObject({ type: 'apartment', bedrooms: 2, bathrooms: null, areaSqm: 50, rent: 3500 });
    expect(new Date(k2!.listedAt * 1000).toISOString().slice(0, 7)).toBe('2024-03');
    expect(k2).toMatchObject({ type: 'studio', bedrooms: 0 });
  });

  it('edge: reads back the converted CSV as written, unknown fields empty', () => {
    const r = { ...row('x1', -6.8, 39.27), bedrooms: null, areaSqm: null };
    const [back] = parseCsv(`${CSV_HEADER}\n${toCsvLine(r)}\n`);
    expect(back).toEqual({ ...r, latitude: -6.8, longitude: 39.27 });
    expect(() => parseCsv('a,b\n1,2')).toThrow(/not a converted rents file/);
  });
});
