// The image process skips, unread, a listings message whose producer marked it as having no image
// (the ingest API's NO_IMAGES_HEADER), and reads every message without the mark as before.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_IMAGES_HEADER } from '../../common/domain/messages.ts';
import { eventually, sampleListing } from '../support/api.ts';
import { closeProducer, listingMessage, publish, rows } from '../support/stream.ts';

afterAll(closeProducer);

const checkedImages = (listingId: string) =>
  rows<{ url: string }>('SELECT url FROM image_checks FINAL WHERE listing_id = {id:UUID}', { id: listingId });

describe('messages marked as without images (happy, edge)', () => {
  it('leaves a marked message to the listings sink and checks the unmarked one behind it', async () => {
    const account = `acct_skip_${randomUUID().slice(0, 8)}`;
    // The mark is the producer's word: this listing does have an image, and the mark must win, so
    // a check of it would show the image process parsed the marked message.
    const marked = listingMessage(
      account,
      sampleListing({ images: ['https://marked.rls-test.invalid/a.jpg'] }),
    );
    const plain = listingMessage(
      account,
      sampleListing({ images: ['https://plain.rls-test.invalid/b.jpg'] }),
    );
    // One key: one partition, so the image process meets the marked message first.
    await publish('rls.listings.v1', [
      { key: account, value: JSON.stringify(marked), headers: { [NO_IMAGES_HEADER]: '0' } },
      { key: account, value: JSON.stringify(plain) },
    ]);

    const checked = await eventually(
      async () => {
        const found = await checkedImages(plain.listing_id);
        return found.length ? found : undefined;
      },
      30_000,
      'image check of the unmarked message',
    );
    expect(checked.map((r) => r.url)).toEqual(['https://plain.rls-test.invalid/b.jpg']);
    expect(await checkedImages(marked.listing_id)).toEqual([]);
    // The listings sink stores both: the mark only concerns images.
    const stored = await eventually(
      async () => {
        const found = await rows<{ id: string }>(
          'SELECT toString(listing_id) AS id FROM listings WHERE account_id = {account:String}',
          { account },
        );
        return found.length === 2 ? found : undefined;
      },
      30_000,
      'both listings stored',
    );
    expect(stored.map((r) => r.id).sort()).toEqual([marked.listing_id, plain.listing_id].sort());
  });
});
