// The v2 listings message as the API publishes it: one value when the request's listings fit under
// Kafka's message size, several (in order, each under it) when they do not.
import { describe, expect, it } from 'vitest';
import type { Listing } from '../../common/domain/listing.ts';
import {
  encodeListingBatch,
  listingMessageHeaders,
  MAX_LISTING_MESSAGE_BYTES,
  mayHaveImages,
  NO_IMAGES_HEADER,
} from '../../common/domain/messages.ts';

const head = {
  account_id: 'acct_1',
  batch_id: '6f1d7c1e-8a4b-4f0c-9d2e-5b7a3c9e1f20',
  is_test: false,
  received_at: '2026-11-26T10:00:00.000Z',
};

const items = (count: number, description: string) =>
  Array.from({ length: count }, (_, i) => ({
    listing_id: `6f1d7c1e-8a4b-5f0c-9d2e-${String(i).padStart(12, '0')}`,
    listing: {
      title: `Flat ${i}`,
      description,
      property_type: 'apartment',
      price: 500_000 + i,
      currency: 'TZS',
      latitude: -6.75 - i / 1000,
    } as Listing,
  }));

describe('encodeListingBatch', () => {
  it('happy: writes one message with the header and every listing in order', () => {
    const batch = items(100, 'Near the beach, with parking');
    const values = encodeListingBatch(head, batch);
    expect(values).toHaveLength(1);
    expect(values[0]).toBe(
      `{"v":2,${JSON.stringify(head).slice(1, -1)},"listings":${JSON.stringify(batch)}}`,
    );
    expect(JSON.parse(values[0]!)).toEqual({ v: 2, ...head, listings: batch });
  });

  it('edge: splits listings over several messages, each under the size limit, when they do not fit', () => {
    // ~20 KB of multi-byte text each: 100 of them are ~3 MB in UTF-8.
    const batch = items(100, 'Nyumba — ü'.repeat(2_000));
    const values = encodeListingBatch(head, batch);
    expect(values.length).toBeGreaterThan(1);
    const decoded = values.map((v) => JSON.parse(v) as { listings: unknown[] });
    for (const value of values)
      expect(Buffer.byteLength(value)).toBeLessThanOrEqual(MAX_LISTING_MESSAGE_BYTES);
    for (const message of decoded) expect(message).toMatchObject({ v: 2, ...head });
    expect(decoded.flatMap((m) => m.listings)).toEqual(batch);
  });
});

describe('the no-images header', () => {
  it('happy: marks a request without image URLs, and only such a request', () => {
    const plain = items(3, 'No photos');
    expect(listingMessageHeaders(plain)).toEqual({ [NO_IMAGES_HEADER]: '0' });
    const empty = items(2, 'Empty list').map((i) => ({ ...i, listing: { ...i.listing, images: [] } }));
    expect(listingMessageHeaders(empty)).toEqual({ [NO_IMAGES_HEADER]: '0' });
    const oneWithImage = [
      ...plain,
      { ...plain[0]!, listing: { ...plain[0]!.listing, images: ['https://x.example/a.jpg'] } },
    ];
    expect(listingMessageHeaders(oneWithImage)).toBeUndefined();
  });

  it('edge: skips a message only when its producer said it has no images', () => {
    // kafkajs hands headers over as Buffers; other producers may send none, or other values.
    expect(mayHaveImages({ headers: { [NO_IMAGES_HEADER]: Buffer.from('0') } })).toBe(false);
    expect(mayHaveImages({ headers: { [NO_IMAGES_HEADER]: '0' } })).toBe(false);
    expect(mayHaveImages({ headers: {} })).toBe(true);
    expect(mayHaveImages({})).toBe(true);
    expect(mayHaveImages({ headers: { [NO_IMAGES_HEADER]: Buffer.from('1') } })).toBe(true);
    expect(mayHaveImages({ headers: { [NO_IMAGES_HEADER]: Buffer.from('') } })).toBe(true);
  });
});
