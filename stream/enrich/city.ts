// Placeholder city resolution by distance to the city centre, until the locations dataset lands.
import { cities, type CitySlug } from '../../common/domain/cities.ts';

const centres: Record<CitySlug, [number, number]> = {
  dar_es_salaam: [-6.7924, 39.2083],
  arusha: [-3.3869, 36.683],
  mwanza: [-2.5164, 32.9175],
  dodoma: [-6.163, 35.7516],
  mbeya: [-8.9094, 33.4608],
  tanga: [-5.0689, 39.0988],
  zanzibar: [-6.1659, 39.2026],
  morogoro: [-6.8278, 37.6591],
  bagamoyo: [-6.4422, 38.9042],
  iringa: [-7.7699, 35.6911],
};

export function nearestCity(latitude: number, longitude: number): CitySlug | '' {
  let best: CitySlug | '' = '';
  let bestKm = 30;
  for (const slug of Object.keys(cities) as CitySlug[]) {
    const [lat, lng] = centres[slug];
    const km = Math.hypot((lat - latitude) * 111, (lng - longitude) * 111 * Math.cos((lat * Math.PI) / 180));
    if (km < bestKm) {
      best = slug;
      bestKm = km;
    }
  }
  return best;
}
