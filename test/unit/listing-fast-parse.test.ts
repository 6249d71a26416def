// The listing shortcut against the schema it stands in for, on generated listings (valid, invalid
// and odd), in the API and in the stream's decoding of a v2 message: whenever the shortcut answers, the schema accepts the same listing and produces the
// same object, key order included; otherwise the shortcut defers. Seeded, so a failure repeats.
import { describe, expect, it } from 'vitest';
import { parseListingFast } from '../../common/domain/listing-fast-parse.ts';
import { listingSchema } from '../../common/domain/listing.ts';
import { listingBatchItemSchema } from '../../common/domain/messages.ts';
import { validateListing } from '../../ingest/listings/validate.ts';
import { decodeListings } from '../../stream/listings/decode.ts';
import { validate } from '../../stream/parse.ts';

/** Mulberry32: a small seeded generator, so each case is a seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const common = (): Record<string, unknown> => ({
  title: 'Bench flat 1',
  description: 'Two-bedroom apartment near the beach, with parking, a generator and fast wifi.',
  property_type: 'apartment',
  price: 500_000,
  currency: 'TZS',
  bedrooms: 2,
  bathrooms: 1,
  area_sqm: 85.5,
  address: 'Plot 1, Masaki Road, Dar es Salaam',
  latitude: -6.75,
  longitude: 39.27,
  amenities: ['parking', 'generator', 'wifi'],
  images: ['https://img.example.com/1/1.jpg', 'https://img.example.com/1/2.jpg'],
  whatsapp_number: '+255712345678',
});

const texts = [
  'Flat',
  '  Flat  ',
  '',
  '   ',
  '\u00a0Flat\u2003',
  'x'.repeat(200),
  'x'.repeat(201),
  ` ${'x'.repeat(200)} `,
  'x'.repeat(500),
  'x'.repeat(501),
  'Nyumba ya kupanga – Msasani',
  'caf\u00e9',
  'bad \ud800 surrogate',
  '\udfff',
  '😀 emoji',
  '\t\n',
  7,
  null,
  true,
  [],
  {},
];
const numbers = [
  0,
  -0,
  1,
  -1,
  0.5,
  2,
  90,
  -90,
  90.0001,
  180,
  -180,
  180.5,
  1000,
  1001,
  999.5,
  1e7,
  1e7 + 1,
  1e12,
  1e12 + 1,
  Number.MAX_SAFE_INTEGER,
  2 ** 53,
  1e300,
  -6.75,
  39.27,
  '5',
  null,
  true,
  [],
];
const urls = [
  'https://img.example.com/1.jpg',
  'http://a.example.org',
  'https://img.example.com',
  'https://img.example.com/',
  'https://IMG.Example.com/a.jpg',
  'https://img.example.com:8443/a.jpg',
  'https://user@img.example.com/a.jpg',
  'https://203.0.113.7/a.jpg',
  'https://[2001:db8::7]/a.jpg',
  'https://1.2.3/a.jpg',
  'https://example.123/a',
  'https://localhost/a.jpg',
  'https://xn--nxasmq6b.com/a',
  'https://xn--a.com/a',
  'ftp://img.example.com/a',
  'javascript:alert(1)',
  'https:/img.example.com/a',
  'http:img.example.com',
  ' https://img.example.com/a ',
  'https://img.example.com/a b',
  'https://img.example.com/a\tb',
  'https://img.example.com/?q=1#f',
  'https://img.example.com/a\\b',
  'https://img.example.com/%zz',
  'https://-bad.example.com/a',
  'https://a..example.com/a',
  'https://img.example.c/a',
  `https://img.example.com/${'a'.repeat(2030)}`,
  `https://img.example.com/${'a'.repeat(2040)}`,
  'https://img_example.com/a',
  'https://img.example.com/ü',
  `https://${`${'a'.repeat(61)}.`.repeat(4)}abcde/a`, // a 253-character host
  `https://${`${'a'.repeat(61)}.`.repeat(4)}abcdef/a`, // 254
  `https://${'a'.repeat(64)}.com/a`,
  'https://bücher.example/a',
  'HTTPS://img.example.com/a',
  'https://img.example.com./a',
  5,
  null,
];
const phones = [
  '+255712345678',
  '255712345678',
  '+0712345678',
  '+1234567',
  '+123456',
  '+1234567890123456',
  5,
];
const uuids = [
  '6f1d7c1e-8a4b-4f0c-9d2e-5b7a3c9e1f20',
  '6F1D7C1E-8A4B-4F0C-9D2E-5B7A3C9E1F20',
  '6f1d7c1e-8a4b-0f0c-9d2e-5b7a3c9e1f20',
  '00000000-0000-0000-0000-000000000000',
  'not-a-uuid',
  '6f1d7c1e8a4b4f0c9d2e5b7a3c9e1f20',
];
const externalIds = ['feed-1', 'a/b#c:d.e_f', '', 'has space', 'x'.repeat(128), 'x'.repeat(129), 'ü', 3];
const datetimes = [
  '2025-06-01T12:00:00Z',
  '2025-06-01T12:00:00+03:00',
  '2025-06-01',
  '2025-02-30T00:00:00Z',
  'now',
];

const pools: Record<string, unknown[]> = {
  title: texts,
  description: texts,
  property_type: ['apartment', 'house', 'studio', 'room', 'commercial', 'land', 'castle', 'Apartment', 3],
  price: numbers,
  currency: ['TZS', 'USD', 'EUR', 'tzs', null],
  bedrooms: numbers,
  bathrooms: numbers,
  area_sqm: numbers,
  address: texts,
  latitude: numbers,
  longitude: numbers,
  amenities: [
    [],
    ['wifi'],
    [' wifi ', 'parking'],
    [''],
    ['x'.repeat(101)],
    Array(101).fill('a'),
    'wifi',
    [3],
  ],
  images: [[], urls.slice(0, 3), Array(51).fill(urls[0]), 'https://img.example.com/1.jpg'],
  video_url: urls,
  whatsapp_number: phones,
  location_id: uuids,
  external_id: externalIds,
  listed_at: datetimes,
};

/** A common listing with a few fields changed, dropped or added (odd keys included). */
function generate(seed: number): Record<string, unknown> {
  const random = rng(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const listing = common();
  const changes = Math.floor(random() * 4);
  for (let i = 0; i < changes; i++) {
    const key = pick(Object.keys(pools));
    const roll = random();
    if (roll < 0.15) delete listing[key];
    else if (key === 'images' && roll < 0.6) listing.images = [pick(urls), pick(urls)];
    else listing[key] = pick(pools[key]!);
  }
  // Keys in another order than the schema's: the output must still follow the schema's.
  if (random() < 0.1) return Object.fromEntries(Object.entries(listing).reverse());
  const extra = random();
  if (extra < 0.02) listing.unknown_field = 1;
  else if (extra < 0.03)
    return JSON.parse(`{"__proto__": {"x": 1}, "title": "t"}`) as Record<string, unknown>;
  return listing;
}

describe('parseListingFast', () => {
  it('happy: parses the common valid listing exactly as the schema does', () => {
    const fast = parseListingFast(common());
    const zod = listingSchema.parse(common());
    expect(fast).toBeDefined();
    expect(JSON.stringify(fast)).toBe(JSON.stringify(zod));
    // Nothing to change: the input object itself is the output.
    const input = common();
    expect(parseListingFast(input)).toBe(input);
    const padded = { ...input, title: ' Bench flat 1 ' };
    expect(parseListingFast(padded)).not.toBe(padded);
    expect(parseListingFast(padded)?.title).toBe('Bench flat 1');
  });

  it('edge: agrees with the schema or defers, on 20,000 generated listings', () => {
    let answered = 0;
    let refusedByZod = 0;
    for (let seed = 1; seed <= 20_000; seed++) {
      const input = generate(seed);
      const fast = parseListingFast(structuredClone(input));
      const zod = listingSchema.safeParse(structuredClone(input));
      if (!zod.success) refusedByZod++;
      if (fast === undefined) continue;
      answered++;
      if (!zod.success || JSON.stringify(fast) !== JSON.stringify(zod.data)) {
        throw new Error(
          `seed ${seed}: ${JSON.stringify(input)} → fast ${JSON.stringify(fast)}, zod ${JSON.stringify(zod)}`,
        );
      }
      expect(Object.is(fast.latitude, zod.data.latitude)).toBe(true);
    }
    // Both sides are exercised: many answers from the shortcut, many refusals by the schema.
    expect(answered).toBeGreaterThan(2_000);
    expect(refusedByZod).toBeGreaterThan(2_000);
  });

  it('error: leaves every error to the schema: validateListing reports the same errors', () => {
    for (let seed = 1; seed <= 3_000; seed++) {
      const input = generate(seed);
      const zod = listingSchema.safeParse(input);
      const result = validateListing(structuredClone(input), { tier: 'business', now: Date.now() });
      if (!zod.success) expect(result.ok, `seed ${seed}`).toBe(false);
    }
  });
});

describe("the stream's decoding of the API's items", () => {
  it('edge: gives, item by item, what the item schema gives: the same values and the same errors', () => {
    const header = {
      account_id: 'acct-1',
      batch_id: '3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f',
      is_test: false,
      received_at: '2026-11-26T10:00:00.000Z',
    };
    const ids = ['0b6f2d7e-5c1a-4e8b-9f3d-2a4c6e8f0a1b', 'not-a-uuid', 7];
    const items = Array.from({ length: 3_000 }, (_, i) => ({
      listing_id: ids[i % 7 === 0 ? 1 + (i % 2) : 0],
      listing: generate(i + 1),
    }));
    const message = { value: Buffer.from(JSON.stringify({ v: 2, ...header, listings: items })) };
    const decoded = decodeListings(message as never);
    expect(decoded).toHaveLength(items.length);
    let valid = 0;
    decoded.forEach((got, item) => {
      const expected = validate(listingBatchItemSchema, structuredClone(items[item]));
      expect(got.ok, `item ${item}`).toBe(expected.ok);
      if (got.ok && expected.ok) {
        valid++;
        expect(JSON.stringify(got.value)).toBe(JSON.stringify({ v: 1, ...header, ...expected.value }));
      } else if (!got.ok && !expected.ok) expect(got.error).toBe(expected.error);
    });
    expect(valid).toBeGreaterThan(300);
    expect(valid).toBeLessThan(items.length);
  });
});
