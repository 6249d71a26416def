// The public real-rent datasets the estimate is measured on (docs/analytics.md, "Real rents"): where
// each comes from (a public Git repository at a pinned commit), its licence, and how its files turn
// into the rows of shape.ts. Nothing of them is stored in this repository.
import { createHash } from 'node:crypto';
import type { RentRow } from './shape.ts';

export interface RentSource {
  /** Name of the converted file (<RENTS_DATA_DIR>/<name>.csv) and of the dataset in reports. */
  name: string;
  repo: string;
  commit: string;
  licence: string;
  /** The files read from the repository, in order. */
  files: string[];
  convert(files: { path: string; text: string }[]): RentRow[];
}

/** Rows of a CSV with a header and no quoted commas (the sources below have none). */
function records(text: string): Record<string, string>[] {
  const [header, ...lines] = text.replace(/\r/g, '').trim().split('\n');
  const names = header!.split(',');
  return lines.map((line) => {
    const values = line.split(',');
    return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
  });
}

const POLAND_MONTHS = [
  '2023_11',
  '2023_12',
  '2024_01',
  '2024_02',
  '2024_03',
  '2024_04',
  '2024_05',
  '2024_06',
];

/**
 * "Apartment Prices in Poland" (Krzysztof Jamroz, CC BY 4.0): monthly snapshots of the rent offers
 * of Poland's 15 largest cities. A listing is dated by the first snapshot that holds its id (a day
 * of that month drawn from the id, so a month's listings spread over it); Polish "rooms" count the
 * living room, so bedrooms = rooms − 1 and a one-room flat is a studio. No bathrooms.
 */
function polishCity(city: string, name: string): RentSource {
  return {
    name,
    repo: 'krzysikd/Apartment-Prices-in-Poland-Analysis-and-Visualization',
    commit: 'cc82f8e7fbd91405939bb5029263d80f2f092ad9',
    licence:
      'CC BY 4.0 — "Apartment Prices in Poland" by Krzysztof Jamroz (Kaggle), as copied into the repository',
    files: POLAND_MONTHS.map((m) => `CSV_Rentals_Data/apartments_rent_pl_${m}.csv`),
    convert(files) {
      const seen = new Map<string, RentRow>();
      for (const { path, text } of files) {
        const [, year, month] = /(\d{4})_(\d{2})\.csv$/.exec(path)!;
        for (const r of records(text)) {
          if (r.city !== city || seen.has(r.id!)) continue;
          const rooms = Number(r.rooms);
          const rent = Number(r.price);
          const area = Number(r.squareMeters);
          const [latitude, longitude] = [Number(r.latitude), Number(r.longitude)];
          if (!(rent > 0) || !(rooms >= 1) || !Number.isFinite(latitude) || !Number.isFinite(longitude))
            continue;
          const day = createHash('sha256').update(r.id!).digest().readUInt32BE(0) % 28;
          seen.set(r.id!, {
            id: r.id!,
            listedAt: Date.UTC(Number(year), Number(month) - 1, 1 + day) / 1000,
            latitude,
            longitude,
            type: rooms === 1 ? 'studio' : 'apartment',
            bedrooms: rooms - 1,
            bathrooms: null,
            areaSqm: area > 0 ? area : null,
            rent,
          });
        }
      }
      return [...seen.values()];
    },
  };
}

export const rentSources: readonly RentSource[] = [
  polishCity('warszawa', 'warsaw'),
  polishCity('krakow', 'krakow'),
];
