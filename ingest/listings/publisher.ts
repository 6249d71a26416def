// Where a bulk request's new listings go: the listings topic, one message for the batch, keyed by
// its batch id (so a batch stays in order), with the header that lets the image process skip a
// batch without images. bulk-create.ts only asks to publish; the topic and the encoding are here.
import type { ListingBatchHeader } from '../../common/domain/messages.ts';
import { encodeListingBatch, listingMessageHeaders } from '../../common/domain/messages.ts';
import type { Listing } from '../../common/domain/listing.ts';
import type { IngestContext } from '../context.ts';

export interface ListingsPublisher {
  /** Publishes the batch's new listings (`head` names the account, mode and batch). */
  publishListings(
    head: ListingBatchHeader,
    listings: { listing_id: string; listing: Listing }[],
  ): Promise<void>;
}

export function kafkaListingsPublisher(
  ctx: Pick<IngestContext, 'platform' | 'listingPublisher'>,
): ListingsPublisher {
  const topic = ctx.platform.topic('rls.listings.v1');
  return {
    async publishListings(head, listings) {
      const headers = listingMessageHeaders(listings);
      await ctx.listingPublisher.publish(
        topic,
        encodeListingBatch(head, listings).map((value) => ({ key: head.batch_id, value, headers })),
      );
    },
  };
}
