// Poison pills on the listings topic: messages written straight to Kafka (bypassing the
// API's validation) whose strings hold a lone UTF-16 surrogate. JSON carries it as the escape
// "\ud800", which ClickHouse refuses (26.7: Code 25, CANNOT_PARSE_ESCAPE_SEQUENCE). The writer used
// to class that error as transient and retry the insert forever; inserts are serial, so no listing
// of any tenant was stored any more. Now:
// - in a listing field, the stream's schema refuses it (as the API does) and quarantines the item;
// - in the message header (`account_id`, which the stream does not check for Unicode), the row
//   reaches ClickHouse, is refused, and after a bounded number of attempts is isolated by bisection
//   and quarantined.
// Either way the listings published after them are stored within seconds.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, sampleListing } from '../support/api.ts';
import { closeProducer, listingMessage, publish, rows, storedCounts } from '../support/stream.ts';

afterAll(closeProducer);

describe('stream: a poison row does not stall the listings pipeline', () => {
  it('error: rows with a lone surrogate go to quarantine and the listings published after them are stored within seconds', async () => {
    const marker = `poison${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const inTitle = listingMessage(`${marker}-ok`, sampleListing({ title: `Flat ${marker} \ud800` }));
    const inHeader = listingMessage(`${marker}-\ud800`, sampleListing());
    const good = Array.from({ length: 20 }, () => listingMessage(`${marker}-ok`, sampleListing()));
    // One key: one partition, so the good messages sit behind the bad ones.
    const started = Date.now();
    await publish('rls.listings.v1', [
      { key: marker, value: JSON.stringify(inTitle) },
      { key: marker, value: JSON.stringify(inHeader) },
    ]);
    await publish(
      'rls.listings.v1',
      good.map((m) => ({ key: marker, value: JSON.stringify(m) })),
    );
    expect(JSON.stringify(inHeader)).toContain('\\ud800'); // the escape, as an API would send it

    const ids = good.map((m) => m.listing_id);
    await eventually(
      async () => ([...(await storedCounts(ids)).values()].every((c) => c === 1) ? true : undefined),
      15_000,
      'the listings published after the poison rows to be stored',
    );
    const storedAfterMs = Date.now() - started;

    const quarantined = await eventually(
      async () => {
        const found = await rows<{ error: string }>(
          `SELECT error FROM quarantine WHERE _topic LIKE '%rls.listings.v1' AND position(payload, '${marker}') > 0`,
        );
        return found.length >= 2 ? found.map((r) => r.error).sort() : undefined;
      },
      15_000,
      'both poison rows in quarantine',
    );
    expect(quarantined).toHaveLength(2);
    expect(quarantined).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^listing\.title: .*well-formed Unicode/),
        expect.stringMatching(/^refused by ClickHouse: Code: 25 \(CANNOT_PARSE_ESCAPE_SEQUENCE\)\. /),
      ]),
    );
    expect(await storedCounts([inTitle.listing_id, inHeader.listing_id])).toEqual(
      new Map([
        [inTitle.listing_id, 0],
        [inHeader.listing_id, 0],
      ]),
    );
    console.info(`poison test: the listings behind the poison rows were stored after ${storedAfterMs} ms`);
    expect(storedAfterMs).toBeLessThan(15_000);
  }, 45_000);
});
