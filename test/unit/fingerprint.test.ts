// The duplicate criterion's text normalisation (ingest/listings/fingerprint.ts) has a fast path for
// plain ASCII; a listing's id depends on it, so both paths must give the same fingerprint.
import { describe, expect, it } from 'vitest';
import type { Listing } from '../../common/domain/listing.ts';
import { listingFingerprint } from '../../ingest/listings/fingerprint.ts';

/** The rule as documented, without the fast path. */
const unicodeNormalise = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

const listing = (title: string, address: string) =>
  ({ title, address, property_type: 'apartment', price: 500_000, currency: 'TZS', bedrooms: 2 }) as Listing;

describe('listing fingerprint (happy)', () => {
  it('normalises ASCII titles and addresses exactly as the Unicode rule does', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const alphabet = 'abcXYZ019 ,.-_/#\t\n\r!?()\'"~`^@';
    for (let i = 0; i < 2_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () =>
        alphabet.charAt(Math.floor(random() * alphabet.length)),
      ).join('');
      expect(listingFingerprint(listing(text, text))).toBe(
        ['v1', 'apartment', unicodeNormalise(text), `a:${unicodeNormalise(text)}`, '500000TZS', 2, ''].join(
          '|',
        ),
      );
    }
  });

  it('keeps the Unicode rule for other text: full-width, accents and Swahili punctuation', () => {
    const title = 'Ｎyumba ya Kupanga — Mbezi Beach, Dar es Salaam';
    expect(listingFingerprint(listing(title, 'Plot 12, Mikocheni “B”'))).toBe(
      [
        'v1',
        'apartment',
        'nyumba ya kupanga mbezi beach dar es salaam',
        'a:plot 12 mikocheni b',
        '500000TZS',
        2,
        '',
      ].join('|'),
    );
    expect(listingFingerprint(listing('Café Flat', 'x'))).toContain('|café flat|');
  });
});
