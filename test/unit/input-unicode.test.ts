// Strings that are not well-formed Unicode (a lone UTF-16 surrogate, which a JSON body carries as
// "\ud800") are refused by every input schema with the per-field code `invalid_string`, URLs and
// format fields included: such a string cannot be stored (ClickHouse refuses the insert), so it
// must never be accepted and published ("Poison pill").
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../common/errors.ts';
import { validateListing } from '../../ingest/listings/validate.ts';
import { fieldErrors } from '../../ingest/validation/field-errors.ts';
import { viewEventSchema } from '../../ingest/views/schemas.ts';
import { registerBody } from '../../ingest/webhooks/router.ts';
import { minimalListing as valid, validationNow as now } from '../support/listing-input.ts';

const lone = ['\ud800', '\udc00']; // a high and a low surrogate without their pair

function listingErrors(listing: object) {
  const result = validateListing(listing, { tier: 'business', now });
  return result.ok ? [] : result.errors;
}

describe('input strings must be well-formed Unicode', () => {
  it.each(lone)(
    'error: a listing field holding %j is refused as invalid_string, one error per field',
    (s) => {
      const errors = listingErrors({
        ...valid,
        title: `Flat ${s}`,
        description: `${s} by the sea`,
        address: `Plot 12 ${s}`,
        amenities: ['wifi', `pool${s}`],
        images: ['https://img.example.com/a.jpg', `https://img.example.com/${s}.jpg`],
        video_url: `https://video.example.com/${s}`,
        external_id: `ref-${s}`,
        whatsapp_number: `+255712345678${s}`,
        location_id: `${s}`,
        listed_at: `2025-05-01T00:00:00Z${s}`,
      });
      expect(errors.map((e) => `${e.field}:${e.code}`).sort()).toEqual([
        'address:invalid_string',
        'amenities.1:invalid_string',
        'description:invalid_string',
        'external_id:invalid_string',
        'images.1:invalid_string',
        'listed_at:invalid_string',
        'location_id:invalid_string',
        'title:invalid_string',
        'video_url:invalid_string',
        'whatsapp_number:invalid_string',
      ]);
      expect(errors.find((e) => e.field === 'title')!.message).toMatch(/^title .*well-formed Unicode/);
    },
  );

  it('happy: characters outside the BMP (a surrogate pair) are well-formed and accepted', () => {
    const result = validateListing(
      { ...valid, title: 'Flat 🌴 by the sea', amenities: ['🏊'] },
      { tier: 'business', now },
    );
    expect(result.ok).toBe(true);
  });

  it('happy: only the shared check gets the field name put in front; other messages stay as written', () => {
    const own = z
      .string()
      .refine(() => false, { params: { code: 'invalid_string' }, message: 'name is odd' });
    const parsed = z.object({ name: own }).safeParse({ name: 'x' });
    expect(fieldErrors(parsed.error!.issues, { name: 'x' })).toEqual([
      { field: 'name', code: 'invalid_string', message: 'name is odd' },
    ]);
  });

  it('error: a view event whose event_id holds a lone surrogate is refused as invalid_string', () => {
    const raw = { listing_id: '5b3c1f4e-8f5a-4c1e-9d7b-2a6f0e1c3d4b', event_id: 'ev-\ud800' };
    const parsed = viewEventSchema.safeParse(raw);
    expect(parsed.success).toBe(false);
    expect(fieldErrors(parsed.error!.issues, raw)).toEqual([
      { field: 'event_id', code: 'invalid_string', message: expect.stringMatching(/^event_id /) },
    ]);
  });

  it('error: a webhook URL or description holding a lone surrogate is refused as invalid_string', () => {
    // The route's body parser refuses the body before the service (and any dependency) is used.
    const refusal = (body: object) => {
      try {
        registerBody.parse(body);
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return (error as AppError).options.details;
      }
      throw new Error('the body was accepted');
    };
    expect(refusal({ url: 'https://hooks.example.com/\ud800' })).toEqual([
      { field: 'url', code: 'invalid_string', message: expect.stringMatching(/^url /) },
    ]);
    expect(refusal({ url: 'https://hooks.example.com/', description: 'ops \udc00' })).toEqual([
      { field: 'description', code: 'invalid_string', message: expect.stringMatching(/^description /) },
    ]);
  });
});
