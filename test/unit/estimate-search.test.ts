// The two searches of the rent estimate must find the same comparables: the endpoint reads the
// H3 cells of a disk (analytics-api/geo/h3-disk.ts), the backtest its in-memory index
// (stream/estimate/nearest-index.ts). Both are checked against brute force on random points.
import { latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { diskCells } from '../../analytics-api/geo/h3-disk.ts';
import type { ComparableColumns } from '../../stream/estimate/backtest-data.ts';
import {
  compareCandidates,
  distanceKm,
  isSimilar,
  MAX_RADIUS_KM,
  RADII_KM,
  type Candidate,
} from '../../common/estimate/method.ts';
import { NearestIndex } from '../../stream/estimate/nearest-index.ts';

/** A deterministic generator, so a failure reproduces. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A point at `km` (uniform in the disk) from (lat, lng). */
function near(rand: () => number, lat: number, lng: number, km: number): [number, number] {
  const angle = rand() * 2 * Math.PI;
  const d = km * Math.sqrt(rand());
  return [
    lat + (d * Math.cos(angle)) / 111.19,
    lng + (d * Math.sin(angle)) / (111.19 * Math.cos((lat * Math.PI) / 180)),
  ];
}

/** A point exactly `km` from (lat, lng) in a random direction. */
function edge(rand: () => number, lat: number, lng: number, km: number): [number, number] {
  const angle = rand() * 2 * Math.PI;
  return [
    lat + (km * Math.cos(angle)) / 111.19,
    lng + (km * Math.sin(angle)) / (111.19 * Math.cos((lat * Math.PI) / 180)),
  ];
}

describe('H3 disk of a radius', () => {
  it('happy: holds the cell of every point within the radius', () => {
    const rand = random(7);
    for (const radius of RADII_KM) {
      for (let i = 0; i < 300; i++) {
        const [lat, lng] = [-11 + rand() * 10, 30 + rand() * 10];
        const cells = new Set(diskCells(lat, lng, radius));
        for (let j = 0; j < 20; j++) {
          // Half of them just inside the circle, where a cut disk would miss a cell first.
          const [pLat, pLng] = j % 2 ? near(rand, lat, lng, radius) : edge(rand, lat, lng, radius * 0.9999);
          if (distanceKm(lat, lng, pLat, pLng) > radius) continue;
          expect(cells.has(BigInt(`0x${latLngToCell(pLat, pLng, 8)}`))).toBe(true);
        }
      }
    }
  });
});

function columns(n: number, rand: () => number): ComparableColumns {
  const c: ComparableColumns = {
    length: n,
    listedAt: new Uint32Array(n),
    latitude: new Float64Array(n),
    longitude: new Float64Array(n),
    bedrooms: new Int16Array(n),
    bathrooms: new Int16Array(n),
    areaSqm: new Float64Array(n),
    priceTzs: new Float64Array(n),
    fingerprintHi: new Uint32Array(n),
    fingerprintLo: new Uint32Array(n),
    tieHi: new Uint32Array(n),
    tieLo: new Uint32Array(n),
    city: new Uint8Array(n),
  };
  const times = Array.from({ length: n }, () => 1_700_000_000 + Math.floor(rand() * 400 * 86_400)).sort();
  for (let i = 0; i < n; i++) {
    // A dense centre, a sparse ring out to 15 km, and some listings on the same spot.
    const [lat, lng] = i % 10 === 0 ? [-6.8, 39.28] : near(rand, -6.8, 39.28, i % 3 ? 2 : 15);
    c.listedAt[i] = times[i]!;
    c.latitude[i] = lat;
    c.longitude[i] = lng;
    c.bedrooms[i] = rand() < 0.1 ? -1 : Math.floor(rand() * 5);
    c.bathrooms[i] = 1;
    c.areaSqm[i] = rand() < 0.3 ? NaN : 30 + rand() * 150;
    c.priceTzs[i] = 100_000 + Math.floor(rand() * 2_000_000);
    c.fingerprintHi[i] = 0;
    c.fingerprintLo[i] = i % 50; // some share a fingerprint
    c.tieHi[i] = Math.floor(rand() * 2 ** 32);
    c.tieLo[i] = i;
  }
  return c;
}

describe('in-memory nearest search (backtest)', () => {
  it('happy: finds exactly the brute-force nearest similar listings', () => {
    const rand = random(11);
    const c = columns(6_000, rand);
    const index = new NearestIndex(c);
    for (let q = 0; q < 300; q++) {
      const [lat, lng] = q % 4 === 0 ? [-6.8, 39.28] : near(rand, -6.8, 39.28, q % 2 ? 3 : 14);
      const bedrooms = q % 5 === 0 ? null : Math.floor(rand() * 5);
      const areaSqm = q % 3 === 0 ? null : 40 + rand() * 100;
      const to = 1_700_000_000 + Math.floor((100 + rand() * 300) * 86_400);
      const from = to - (q % 2 ? 90 : 365) * 86_400;
      const exclude = q % 50;
      const limit = 15;
      const got = index.nearest({
        latitude: lat,
        longitude: lng,
        bedrooms,
        areaSqm,
        from,
        to,
        reference: to,
        excludeHi: 0,
        excludeLo: exclude,
        limit,
        maxKm: MAX_RADIUS_KM,
      });
      const all: Candidate[] = [];
      for (let r = 0; r < c.length; r++) {
        if (c.listedAt[r]! < from || c.listedAt[r]! >= to || c.fingerprintLo[r] === exclude) continue;
        const comp = {
          bedrooms: c.bedrooms[r]! < 0 ? null : c.bedrooms[r]!,
          areaSqm: Number.isNaN(c.areaSqm[r]!) ? null : c.areaSqm[r]!,
        };
        if (!isSimilar({ latitude: lat, longitude: lng, bedrooms, bathrooms: null, areaSqm }, comp)) continue;
        const d = distanceKm(lat, lng, c.latitude[r]!, c.longitude[r]!);
        if (d > MAX_RADIUS_KM) continue;
        all.push({
          listingId: '',
          listedAt: c.listedAt[r]!,
          distanceKm: d,
          ageDays: (to - c.listedAt[r]!) / 86_400,
          ...comp,
          bathrooms: 1,
          priceTzs: c.priceTzs[r]!,
          tieHi: c.tieHi[r]!,
          tieLo: c.tieLo[r]!,
        });
      }
      const expected = all.sort(compareCandidates).slice(0, limit);
      expect(got.map((g) => g.tieLo)).toEqual(expected.map((e) => e.tieLo));
      expect(got.map((g) => g.distanceKm)).toEqual(expected.map((e) => e.distanceKm));
    }
  });
});
