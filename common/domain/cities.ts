// The ten cities the analytics cover (spec §4.3), by slug. Neighbourhoods live in the locations
// dataset (infra/locations/).
export const cities = {
  dar_es_salaam: 'Dar es Salaam',
  arusha: 'Arusha',
  mwanza: 'Mwanza',
  dodoma: 'Dodoma',
  mbeya: 'Mbeya',
  tanga: 'Tanga',
  zanzibar: 'Zanzibar',
  morogoro: 'Morogoro',
  bagamoyo: 'Bagamoyo',
  iringa: 'Iringa',
} as const;

export type CitySlug = keyof typeof cities;
export const citySlugs = Object.keys(cities) as CitySlug[];
