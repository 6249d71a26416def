// The key of a listing's image as its image_checks and listing_images rows carry it.
import type { ListingMessage } from '../../common/domain/messages.ts';
import type { ListingImageKey } from '../../common/warehouse/listing-image-key.ts';

export function imageKeyOf(message: ListingMessage, index: number, url: string): ListingImageKey {
  return {
    listing_id: message.listing_id,
    image_index: index,
    batch_id: message.batch_id,
    account_id: message.account_id,
    is_test: message.is_test ? 1 : 0,
    url,
  };
}
