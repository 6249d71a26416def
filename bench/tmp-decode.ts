import { randomUUID } from 'node:crypto';
import { encodeListingBatch } from '../common/domain/messages.ts';
import type { Listing } from '../common/domain/listing.ts';
import { decodeListings } from '../stream/listings/decode.ts';
import { nextListingsBody } from './listing-bodies.ts';
const template = JSON.parse(nextListingsBody('x', { withAddress: true })) as { listings: Listing[] };
const head = { account_id: 'a', batch_id: randomUUID(), is_test: false, received_at: new Date().toISOString() };
const [value] = encodeListingBatch(head, template.listings.map((listing) => ({ listing_id: randomUUID(), listing })));
const message = { value: Buffer.from(value!), offset: '1', key: null, timestamp: '0', attributes: 0, headers: {} } as never;
const hasImages = (raw: unknown) => { const i = (raw as { images?: unknown } | null)?.images; return Array.isArray(i) && i.length > 0; };
console.log('bytes', Buffer.byteLength(value!), 'listings', template.listings.length);
for (const round of [1, 2, 3]) {
  const n = 2000; let t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) decodeListings(message, hasImages);
  const a = Number(process.hrtime.bigint() - t) / n / 100 / 1000;
  t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) Buffer.from(value!).indexOf('"images"');
  const b = Number(process.hrtime.bigint() - t) / n / 100 / 1000;
  t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) JSON.parse((message as {value: Buffer}).value.toString());
  const c = Number(process.hrtime.bigint() - t) / n / 100 / 1000;
  console.log(round, `decode+select ${a.toFixed(2)} µs/listing, indexOf ${b.toFixed(3)}, toString+parse ${c.toFixed(2)}`);
}
