// Pure parts of the ingest API: listing validation rules, error codes, the duplicate fingerprint
// and the OpenAPI registry.
import { describe, expect, it } from 'vitest';
import { createOpenApiRegistry } from '../../common/openapi/registry.ts';
import { listingFingerprint, listingIdFor } from '../../ingest/listings/fingerprint.ts';
import { validateListing } from '../../ingest/listings/validate.ts';
import { registerRoutes } from '../../common/http/route.ts';
import { ingestDocumentedRoutes } from '../../ingest/router.ts';
import { minimalListing as valid, validationNow as now } from '../support/listing-input.ts';

describe('validateListing', () => {
  it('happy: accepts a minimal listing and defaults the currency to TZS', () => {
    const result = validateListing(valid, { tier: 'business', now });
    expect(result.ok && result.listing.currency).toBe('TZS');
  });

  it('error: rejects non-finite and oversize numbers, and non-http URLs', () => {
    const result = validateListing(
      { ...valid, price: Infinity, area_sqm: -1, video_url: 'javascript:alert(1)', images: ['http://'] },
      { tier: 'business', now },
    );
    expect(result.ok).toBe(false);
    const codes = !result.ok ? result.errors.map((e) => `${e.field}:${e.code}`).sort() : [];
    expect(codes).toEqual([
      'area_sqm:not_positive',
      'images.0:invalid_url',
      'price:invalid_type',
      'video_url:invalid_url',
    ]);
  });

  it('error: refuses a price above the plausible monthly rent of its type, in TZS and in USD', () => {
    const codes = (listing: object) => {
      const result = validateListing({ ...valid, ...listing }, { tier: 'business', now });
      return result.ok ? [] : result.errors.map((e) => `${e.field}:${e.code}`);
    };
    expect(codes({ property_type: 'apartment', price: 1e9 })).toEqual([]);
    expect(codes({ property_type: 'apartment', price: 1e9 + 1 })).toEqual(['price:implausible_price']);
    expect(codes({ property_type: 'apartment', price: 400_000, currency: 'USD' })).toEqual([]);
    expect(codes({ property_type: 'apartment', price: 400_001, currency: 'USD' })).toEqual([
      'price:implausible_price',
    ]);
    expect(codes({ property_type: 'room', price: 1e8 + 1 })).toEqual(['price:implausible_price']);
    expect(codes({ property_type: 'land', price: 1e10 })).toEqual([]);
  });

  it('error: applies the tier image limit from tiers.ts', () => {
    const images = Array.from({ length: 16 }, (_, i) => `https://x.example/${i}.jpg`);
    expect(validateListing({ ...valid, images }, { tier: 'pro', now }).ok).toBe(false);
    expect(validateListing({ ...valid, images }, { tier: 'business', now }).ok).toBe(true);
  });
});

describe('listingFingerprint', () => {
  it('happy: ignores case, punctuation and whitespace, but not price or bedrooms', () => {
    const parse = (l: object) => {
      const r = validateListing(l, { tier: 'business', now });
      if (!r.ok) throw new Error('invalid');
      return listingFingerprint(r.listing);
    };
    expect(parse({ ...valid, title: 'TWO-bedroom  flat!' })).toBe(parse(valid));
    expect(parse({ ...valid, description: 'other' })).toBe(parse(valid));
    expect(parse({ ...valid, price: 850_001 })).not.toBe(parse(valid));
    expect(parse({ ...valid, bedrooms: 2 })).not.toBe(parse(valid));
    expect(parse({ ...valid, external_id: 'a' })).toBe(parse({ ...valid, price: 1, external_id: 'a' }));
  });

  it('security: derives ids per account and mode', () => {
    expect(listingIdFor('a', 'live', 'f')).toBe(listingIdFor('a', 'live', 'f'));
    expect(listingIdFor('a', 'live', 'f')).not.toBe(listingIdFor('b', 'live', 'f'));
    expect(listingIdFor('a', 'live', 'f')).not.toBe(listingIdFor('a', 'test', 'f'));
  });
});

describe('OpenAPI registry', () => {
  it('happy: renders registered paths with shared error responses, and refuses duplicates', () => {
    const registry = createOpenApiRegistry({ title: 't', version: '1' });
    registerRoutes(registry, ingestDocumentedRoutes);
    const doc = registry.document() as { paths: Record<string, Record<string, { responses: object }>> };
    expect(Object.keys(doc.paths)).toContain('/listings/bulk');
    expect(doc.paths['/listings/bulk']!.post!.responses).toHaveProperty('422');
    expect(() => registerRoutes(registry, ingestDocumentedRoutes)).toThrow(/registered twice/);
  });
});
