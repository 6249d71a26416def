// Rows → request batches: up to 100 listings (the API's limit) and never more than a request body
// may hold (2 MiB; a batch closes early when the next listing would not fit). Batching depends on
// the file's content only, so batch N of a resumed run is byte for byte batch N of the first run —
// which is what lets the same Idempotency-Key be sent again safely. Unparseable rows ride along in
// the batch where they occur (reported with it, not sent).
import { MAX_LISTINGS_PER_REQUEST } from '../ingest/listings/schemas.ts';
import type { SourceRow } from './source/rows.ts';

/** Below the API's 2 MiB body limit, with room for the envelope. */
export const MAX_BODY_BYTES = 2_000_000;
const ENVELOPE = '{"listings":[]}';

export interface Batch {
  /** 1-based, in file order. */
  number: number;
  /** Every row of the batch, sent or not, in file order. */
  rows: SourceRow[];
  /** Row number of each listing in the request body, by index. */
  listingRows: number[];
  /** The request body, or undefined when no row of the batch can be sent. */
  body: string | undefined;
  firstRow: number;
  lastRow: number;
  /** File bytes read when the batch was complete (progress only). */
  offset: number;
}

export async function* batchesOf(
  rows: AsyncIterable<SourceRow>,
  limits = { listings: MAX_LISTINGS_PER_REQUEST, bytes: MAX_BODY_BYTES },
): AsyncGenerator<Batch> {
  let number = 0;
  let current: SourceRow[] = [];
  let parts: string[] = [];
  let listingRows: number[] = [];
  let bytes = ENVELOPE.length;

  const close = (): Batch => {
    const first = current[0]!;
    const last = current[current.length - 1]!;
    const batch: Batch = {
      number: ++number,
      rows: current,
      listingRows,
      body: parts.length ? `{"listings":[${parts.join(',')}]}` : undefined,
      firstRow: first.row,
      lastRow: last.row,
      offset: last.offset,
    };
    current = [];
    parts = [];
    listingRows = [];
    bytes = ENVELOPE.length;
    return batch;
  };

  for await (const source of rows) {
    let row = source;
    let json: string | undefined;
    let size = 0;
    if (row.listing !== undefined) {
      json = JSON.stringify(row.listing);
      size = Buffer.byteLength(json);
      if (size + ENVELOPE.length > limits.bytes) {
        row = {
          row: row.row,
          offset: row.offset,
          problem: {
            code: 'row_too_large',
            message: `the listing is ${size} bytes as JSON; a request may hold at most ${limits.bytes}`,
          },
        };
        json = undefined;
      } else if (parts.length === limits.listings || bytes + size + 1 > limits.bytes) {
        yield close();
      }
    }
    current.push(row);
    if (json !== undefined) {
      parts.push(json);
      listingRows.push(row.row);
      bytes += size + 1;
    }
  }
  if (current.length) yield close();
}
