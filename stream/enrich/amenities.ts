// Amenity names as clients type them ("Wi-Fi", " Swimming Pool ", "AC") → one canonical lowercase
// vocabulary, deduplicated in first-seen order, so analytics can group by amenity.
const synonyms: Record<string, string> = {
  'wi fi': 'wifi',
  'wireless internet': 'wifi',
  internet: 'wifi',
  'swimming pool': 'pool',
  'swimming-pool': 'pool',
  'air conditioning': 'air_conditioning',
  'air conditioner': 'air_conditioning',
  ac: 'air_conditioning',
  'a c': 'air_conditioning',
  aircon: 'air_conditioning',
  'car park': 'parking',
  'parking space': 'parking',
  garage: 'parking',
  'back up generator': 'generator',
  'backup generator': 'generator',
  genset: 'generator',
  'fully furnished': 'furnished',
  'semi furnished': 'semi_furnished',
  'security guard': 'security',
  askari: 'security',
  '24h security': 'security',
  'fitness centre': 'gym',
  'fitness center': 'gym',
  'hot water': 'hot_water',
  'water heater': 'hot_water',
  'water tank': 'water_tank',
  'sea view': 'sea_view',
  'ocean view': 'sea_view',
};

// Feeds repeat the same few amenity spellings on every listing: remember the answers (bounded: a
// client inventing names only costs a cleared cache now and then).
const known = new Map<string, string>();
const KNOWN_MAX = 10_000;

export function normaliseAmenity(raw: string): string {
  let name = known.get(raw);
  if (name === undefined) {
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(raw, (name = canonicalName(raw)));
  }
  return name;
}

function canonicalName(raw: string): string {
  const words = raw
    .toLowerCase()
    .normalize('NFKC')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return synonyms[words] ?? words.replace(/ /g, '_');
}

export function normaliseAmenities(raw: readonly string[] | undefined): string[] {
  const out = new Set<string>();
  for (const item of raw ?? []) {
    const name = normaliseAmenity(item);
    if (name) out.add(name);
  }
  return [...out];
}
