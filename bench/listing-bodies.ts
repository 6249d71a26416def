// Request bodies of new listings for the whole-stack benchmarks: 100 listings a request, mixed in
// type, price and currency (a fifth priced in USD), each title unique to the run and the request so
// every listing posted is new.
const run = Date.now().toString(36);
let seq = 0;

/** The next request body; `label` starts each title, `withAddress` gives each listing a street address. */
export function nextListingsBody(label: string, { withAddress = false } = {}): string {
  const n = seq++;
  const listings = Array.from({ length: 100 }, (_, i) => ({
    title: `${label} ${run}-${n}-${i}`,
    description: 'Two-bedroom apartment near the beach, with parking, a generator and fast wifi.',
    property_type: i % 3 === 0 ? 'house' : 'apartment',
    price: 500_000 + i * 1_000,
    currency: i % 5 === 0 ? 'USD' : 'TZS',
    bedrooms: 1 + (i % 4),
    bathrooms: 1,
    ...(withAddress ? { address: `Plot ${i}, Masaki Road, Dar es Salaam` } : {}),
    latitude: -6.75 - i / 1000,
    longitude: 39.27 + i / 1000,
    amenities: ['Parking', 'generator', 'Wi-Fi'],
  }));
  return JSON.stringify({ listings });
}
