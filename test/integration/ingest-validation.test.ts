// POST /listings/bulk validation and HTTP edge cases against the running service.
import { describe, expect, it } from 'vitest';
import { api, baseUrl, createTestKey, sampleListing } from '../support/api.ts';

const DAR_LOCATION_ID = 'e56a96d1-ee68-5e26-8980-b50e83b5faf2';

function codesOf(result: { errors: { field: string; code: string }[] }) {
  return result.errors.map((e) => `${e.field}:${e.code}`).sort();
}

describe('bulk validation (error)', () => {
  it('reports every error of every listing, by index, field and stable code (10 distinct errors)', async () => {
    const { key } = await createTestKey();
    const response = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: {
        listings: [
          sampleListing(),
          {
            ...sampleListing(),
            title: 'x'.repeat(201),
            property_type: 'castle',
            price: -5,
            currency: 'EUR',
            bedrooms: 1.5,
            latitude: 95,
            images: ['ftp://example.com/a.jpg'],
            whatsapp_number: '0712 345 678',
            location_id: 'not-a-uuid',
            colour: 'blue',
          },
          { description: 'no title', property_type: 'house', price: 1 },
          'not an object',
        ],
      },
    });
    expect(response.status).toBe(201);
    expect(response.body.summary).toMatchObject({ total: 4, succeeded: 1, failed: 3, created: 1 });
    expect(response.body.batch_id).toMatch(/^[0-9a-f-]{36}$/);
    const [ok, bad, missing, notObject] = response.body.results;
    expect(ok).toMatchObject({ index: 0, success: true, status: 'created' });
    expect(bad.index).toBe(1);
    expect(bad.success).toBe(false);
    expect(codesOf(bad)).toEqual(
      [
        'title:too_long',
        'property_type:invalid_enum',
        'price:not_positive',
        'currency:invalid_enum',
        'bedrooms:not_integer',
        'latitude:out_of_range',
        'images.0:invalid_url',
        'whatsapp_number:invalid_phone_number',
        'location_id:invalid_uuid',
        'colour:unknown_field',
      ].sort(),
    );
    for (const error of bad.errors) expect(error.message.length).toBeGreaterThan(5);
    expect(codesOf(missing)).toEqual(['title:required']);
    expect(notObject).toMatchObject({ index: 3, success: false, errors: [{ code: 'invalid_type' }] });
  });

  it('checks the tier image limit, coordinate pairs, location ids, listed_at and outside-Tanzania', async () => {
    const business = await createTestKey({ tier: 'business' });
    const images = (n: number) => Array.from({ length: n }, (_, i) => `https://img.example.com/${i}.jpg`);
    const now = Date.now();
    const response = await api('POST', '/api/v1/listings/bulk', {
      key: business.key,
      body: {
        listings: [
          sampleListing({ images: images(30), location_id: DAR_LOCATION_ID }),
          sampleListing({ images: images(31) }),
          sampleListing({ latitude: undefined }),
          sampleListing({ location_id: '0f0e0d0c-0b0a-4908-8706-050403020100' }),
          sampleListing({ listed_at: new Date(now + 3_600_000).toISOString() }),
          sampleListing({ listed_at: new Date(now - 3 * 365 * 86_400_000).toISOString() }),
          sampleListing({ listed_at: new Date(now - 86_400_000).toISOString() }),
          sampleListing({ latitude: 51.5, longitude: -0.12 }),
        ],
      },
    });
    expect(response.status).toBe(201);
    const r = response.body.results;
    expect(r[0]).toMatchObject({ success: true });
    expect(codesOf(r[1])).toEqual(['images:too_many_images']);
    expect(r[1].errors[0].message).toContain('30');
    expect(codesOf(r[2])).toEqual(['latitude:coordinates_incomplete']);
    expect(codesOf(r[3])).toEqual(['location_id:unknown_location']);
    expect(codesOf(r[4])).toEqual(['listed_at:in_future']);
    expect(codesOf(r[5])).toEqual(['listed_at:too_old']);
    expect(r[6]).toMatchObject({ success: true });
    expect(r[7]).toMatchObject({ success: true, warnings: [{ code: 'outside_tanzania' }] });

    const free = await createTestKey({ tier: 'free' });
    const limited = await api('POST', '/api/v1/listings/bulk', {
      key: free.key,
      body: { listings: [sampleListing({ images: images(6) })] },
    });
    expect(limited.status).toBe(400);
    expect(limited.body.error.details.results[0].errors[0]).toMatchObject({ code: 'too_many_images' });
  });

  it('refuses prices far above the plausible monthly rent of the type, in TZS and USD', async () => {
    const { key } = await createTestKey();
    const response = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: {
        listings: [
          sampleListing({ property_type: 'apartment', price: 2e9 }),
          sampleListing({ property_type: 'apartment', price: 500_000, currency: 'USD' }),
          sampleListing({ property_type: 'room', price: 2e8 }),
          sampleListing({ property_type: 'apartment', price: 9e8 }),
          sampleListing({ property_type: 'commercial', price: 2e9 }),
        ],
      },
    });
    expect(response.status).toBe(201);
    const r = response.body.results;
    for (const i of [0, 1, 2]) {
      expect(codesOf(r[i])).toEqual(['price:implausible_price']);
      expect(r[i].errors[0].message).toMatch(/plausible/);
    }
    expect(r[3]).toMatchObject({ success: true });
    expect(r[4]).toMatchObject({ success: true });
  });

  it('answers 400 all_listings_failed in the error shape, with the per-listing results', async () => {
    const { key } = await createTestKey();
    const response = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [{ title: '' }, sampleListing({ price: 0 })] },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'all_listings_failed', retriable: false });
    expect(response.body.error.request_id).toBeTruthy();
    expect(response.body.error.details.summary).toMatchObject({ total: 2, succeeded: 0, failed: 2 });
    expect(response.body.error.details.batch_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.body.error.details.results[1].errors).toEqual([
      expect.objectContaining({ field: 'price', code: 'not_positive' }),
    ]);
  });

  it('refuses more than 100 listings with a message telling the client to split', async () => {
    const { key } = await createTestKey();
    const listings = Array.from({ length: 101 }, () => sampleListing());
    const response = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('too_many_listings');
    expect(response.body.error.message).toMatch(/split/i);
  });

  it('refuses an invalid envelope: missing listings, unknown top-level field, empty array', async () => {
    const { key } = await createTestKey();
    for (const body of [{}, { listings: [sampleListing()], extra: 1 }, { listings: [] }, [sampleListing()]]) {
      const response = await api('POST', '/api/v1/listings/bulk', { key, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('validation_failed');
    }
  });
});

describe('bulk request hygiene (security)', () => {
  const post = (key: string, rawBody: string, contentType = 'application/json') =>
    api('POST', '/api/v1/listings/bulk', { key, rawBody, headers: { 'Content-Type': contentType } });

  it('answers malformed bodies with a clear 4xx in the one error shape, never a 500', async () => {
    const { key } = await createTestKey();
    const cases: [string, string, number, string][] = [
      ['{"listings": [', 'application/json', 400, 'invalid_json'],
      ['', 'application/json', 400, 'invalid_json'],
      ['{"listings": []}', 'text/plain', 415, 'unsupported_media_type'],
      ['listings=1', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
      [`${'['.repeat(5000)}${']'.repeat(5000)}`, 'application/json', 400, 'invalid_json'],
      ['{"listings":[{"__proto__":{"admin":true}}]}', 'application/json', 400, 'invalid_json'],
      ['{"constructor":{"prototype":{"x":1}},"listings":[]}', 'application/json', 400, 'invalid_json'],
      // The same keys spelled with JSON escapes: checked after parsing, not in the raw text.
      ['{"listings":[{"\\u005f\\u005fproto__":{"admin":true}}]}', 'application/json', 400, 'invalid_json'],
      ['{"listings":[{"\\u0063onstructor":{"x":1}}]}', 'application/json', 400, 'invalid_json'],
      [`{"listings":[${'"x",'.repeat(700_000)}"x"]}`, 'application/json', 413, 'payload_too_large'],
    ];
    for (const [body, type, status, code] of cases) {
      const response = await post(key, body, type);
      expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
      expect(response.body.error.request_id).toBe(response.headers.get('x-request-id'));
    }
  });

  it('answers unknown routes with 404 in the error shape', async () => {
    const { key } = await createTestKey();
    const response = await api('GET', '/api/v1/listings/nope', { key });
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'not_found', retriable: false });
    expect(response.body.error.request_id).toBeTruthy();
  });

  it('requires a key (401) before reading the body', async () => {
    const response = await api('POST', '/api/v1/listings/bulk', { body: { listings: [sampleListing()] } });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('missing_api_key');
  });

  it('answers CORS preflight for X-API-Key and Idempotency-Key, and exposes headers', async () => {
    const preflight = await fetch(`${baseUrl()}/api/v1/listings/bulk`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://agency.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,x-api-key,idempotency-key',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const header of ['x-api-key', 'content-type', 'idempotency-key']) expect(allowed).toContain(header);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');

    const { key } = await createTestKey();
    const actual = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing()] },
      headers: { Origin: 'https://agency.example' },
    });
    expect(actual.status).toBe(201);
    expect(actual.headers.get('access-control-allow-origin')).toBe('*');
    expect(actual.headers.get('access-control-expose-headers')).toContain('Idempotency-Replayed');
  });
});
