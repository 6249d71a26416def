// Pure parts of the uploader (upload/): the streaming RFC 4180 parser, the three readers, the CSV
// cell mapping and the batching. Every parser is fed the same text whole and split at every
// position, since a streamed file splits records, quotes and CRLFs at arbitrary chunk boundaries.
import { describe, expect, it } from 'vitest';
import { batchesOf } from '../../upload/batches.ts';
import { FatalError } from '../../upload/fatal.ts';
import { CsvParser } from '../../upload/source/csv-parser.ts';
import { csvRows } from '../../upload/source/csv.ts';
import type { TextSource } from '../../upload/source/decode.ts';
import { cellValue, listingFieldKinds } from '../../upload/source/fields.ts';
import { jsonArrayRows } from '../../upload/source/json-array.ts';
import { ndjsonRows } from '../../upload/source/ndjson.ts';
import type { SourceRow } from '../../upload/source/rows.ts';

function parseCsv(chunks: string[]) {
  const parser = new CsvParser();
  const records = chunks.flatMap((chunk) => parser.push(chunk));
  return [...records, ...parser.end()];
}

/** The text whole, one character at a time, and split at every position into two chunks. */
function splits(text: string): string[][] {
  const all = [[text], [...text]];
  for (let i = 1; i < text.length; i++) all.push([text.slice(0, i), text.slice(i)]);
  return all;
}

function textSource(chunks: string[]): TextSource {
  return {
    chunks: (async function* () {
      yield* chunks;
    })(),
    bytesRead: () => 0,
  };
}

async function collect(rows: AsyncIterable<SourceRow>): Promise<SourceRow[]> {
  const out: SourceRow[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

const noWarn = { label: 'f', warn: () => undefined };

describe('CsvParser (RFC 4180, streaming)', () => {
  it('happy: reads quoted fields, doubled quotes, embedded commas and line breaks, whatever the chunking', () => {
    const text = 'a,b,c\r\n"x, y","say ""hi""","two\r\nlines"\n1,,3\r4,5,6';
    const expected = [
      { fields: ['a', 'b', 'c'], line: 1 },
      { fields: ['x, y', 'say "hi"', 'two\r\nlines'], line: 2 },
      { fields: ['1', '', '3'], line: 4 },
      { fields: ['4', '5', '6'], line: 5 },
    ];
    for (const chunks of splits(text)) expect(parseCsv(chunks)).toEqual(expected);
  });

  it('happy: skips empty lines, keeps a trailing empty field, takes a quote inside an unquoted field literally', () => {
    const text = '\n\na,b,\n\n5" screen,"",x\n';
    for (const chunks of splits(text)) {
      expect(parseCsv(chunks)).toEqual([
        { fields: ['a', 'b', ''], line: 3 },
        { fields: ['5" screen', '', 'x'], line: 5 },
      ]);
    }
  });

  it('error: marks a record with text after a closing quote as broken and resumes at the next record', () => {
    for (const chunks of splits('"ab"c,d\nok,1\n')) {
      const [broken, next] = parseCsv(chunks);
      expect(broken!.error).toMatch(/line 1: unexpected character after the closing quote/);
      expect(next).toEqual({ fields: ['ok', '1'], line: 2 });
    }
  });

  it('error: reports an unterminated quoted field at the end of the file as one broken record', () => {
    for (const chunks of splits('a,b\n1,"open\n2,3\n')) {
      const records = parseCsv(chunks);
      expect(records).toHaveLength(2);
      expect(records[1]!.error).toBe('the quoted field opened on line 2 is never closed');
    }
  });
});

describe('CSV rows → listings', () => {
  it('happy: maps numbers, |-separated lists and empty cells (omitted) by the listing schema', async () => {
    const csv =
      'title,price,bedrooms,latitude,longitude,amenities,images,address\n' +
      'Flat,1500000,2,-6.75,39.28, wifi | parking |,https://a.example/1.jpg|https://a.example/2.jpg,\n' +
      'Cheap,abc,2.5,,,,,"  Plot 1  "\n';
    const rows = await collect(csvRows(textSource([csv]), noWarn));
    expect(rows.map((r) => r.listing)).toEqual([
      {
        title: 'Flat',
        price: 1500000,
        bedrooms: 2,
        latitude: -6.75,
        longitude: 39.28,
        amenities: ['wifi', 'parking'],
        images: ['https://a.example/1.jpg', 'https://a.example/2.jpg'],
      },
      // Not numbers: left as text, so the server reports invalid_type / not_integer for them.
      { title: 'Cheap', price: 'abc', bedrooms: 2.5, address: '  Plot 1  ' },
    ]);
    expect(rows.map((r) => r.row)).toEqual([1, 2]);
  });

  it('happy: derives field kinds from the listing schema', () => {
    expect(listingFieldKinds.get('price')).toBe('number');
    expect(listingFieldKinds.get('area_sqm')).toBe('number');
    expect(listingFieldKinds.get('images')).toBe('list');
    expect(listingFieldKinds.get('currency')).toBe('text');
    expect(cellValue('boolean', 'Yes')).toBe(true);
    expect(cellValue('number', ' 1e3 ')).toBe(1000);
    expect(cellValue('list', ' | ')).toBeUndefined();
  });

  it('error: numbers rows after the header, skips blank rows, and refuses rows it cannot map', async () => {
    const csv = 'title,price\n\n,\nA,1\n"B"x,2\nC\nD,4,extra\nE,5\n';
    const rows = await collect(csvRows(textSource([csv]), noWarn));
    expect(rows.map((r) => [r.row, r.problem?.code ?? 'ok'])).toEqual([
      [1, 'ok'],
      [2, 'unparseable_row'],
      [3, 'unparseable_row'],
      [4, 'unparseable_row'],
      [5, 'ok'],
    ]);
    expect(rows[2]!.problem!.message).toBe('line 6: 1 cells, but the header has 2 columns');
  });

  it('error: refuses a file whose header names no listing field, or a column twice', async () => {
    await expect(collect(csvRows(textSource(['a;b;c\n1;2;3\n']), noWarn))).rejects.toThrow(
      /no header column is a listing field/,
    );
    await expect(collect(csvRows(textSource(['title,price,title\n']), noWarn))).rejects.toThrow(
      /names column "title" twice/,
    );
    await expect(collect(csvRows(textSource(['']), noWarn))).rejects.toBeInstanceOf(FatalError);
  });

  it('error: warns once about columns that are not listing fields', async () => {
    const warnings: string[] = [];
    await collect(
      csvRows(textSource(['title,notes\nA,x\nB,y\n']), { label: 'f', warn: (m) => warnings.push(m) }),
    );
    expect(warnings).toEqual([expect.stringContaining('"notes"')]);
  });
});

describe('JSON array rows', () => {
  const text = ' [ {"title":"a, ]b","n":[1,{"x":"}"}]} ,\n{"title":"q\\"]"}, {bad json}, 42 ]\n';

  it('happy: streams elements whose strings hold brackets, commas and escaped quotes, at any chunking', async () => {
    for (const chunks of splits(text)) {
      const rows = await collect(jsonArrayRows(textSource(chunks), noWarn));
      expect(rows.map((r) => r.listing ?? r.problem!.code)).toEqual([
        { title: 'a, ]b', n: [1, { x: '}' }] },
        { title: 'q"]' },
        'unparseable_row',
        42, // sent as is: the server answers "Each listing must be a JSON object"
      ]);
      expect(rows.map((r) => r.row)).toEqual([1, 2, 3, 4]);
    }
  });

  it('happy: reads an empty array as no rows', async () => {
    expect(await collect(jsonArrayRows(textSource(['[ ]']), noWarn))).toEqual([]);
  });

  it('error: refuses a file that is not a JSON array', async () => {
    await expect(collect(jsonArrayRows(textSource(['{"listings":[]}']), noWarn))).rejects.toThrow(
      /starts with "\{" \(an object; for one object per line use --format ndjson\)/,
    );
    await expect(collect(jsonArrayRows(textSource(['title,price\n']), noWarn))).rejects.toBeInstanceOf(
      FatalError,
    );
  });

  it('error: uploads what precedes a cut-off end, with a warning', async () => {
    const warnings: string[] = [];
    const rows = await collect(
      jsonArrayRows(textSource(['[{"a":1},{"b":']), { label: 'f', warn: (m) => warnings.push(m) }),
    );
    expect(rows.map((r) => r.listing ?? r.problem!.code)).toEqual([{ a: 1 }, 'unparseable_row']);
    expect(warnings[0]).toMatch(/no closing \]/);
  });
});

describe('NDJSON rows', () => {
  it('happy: reads one value per line, skipping blank lines, at any chunking', async () => {
    for (const chunks of splits('{"a":1}\r\n\n{"b":2}\n{oops\n{"c":3}')) {
      const rows = await collect(ndjsonRows(textSource(chunks), { label: 'f' }));
      expect(rows.map((r) => r.listing ?? r.problem!.message)).toEqual([
        { a: 1 },
        { b: 2 },
        expect.stringMatching(/^line 4: not valid JSON/),
        { c: 3 },
      ]);
    }
  });

  it('error: refuses a file whose first line is not JSON', async () => {
    await expect(collect(ndjsonRows(textSource(['title,price\nA,1\n']), { label: 'f' }))).rejects.toThrow(
      /not readable as NDJSON: line 1 is not JSON/,
    );
  });
});

describe('batchesOf', () => {
  async function* rowsOf(count: number, problemAt = new Set<number>(), size = 10) {
    for (let row = 1; row <= count; row++) {
      yield problemAt.has(row)
        ? { row, offset: row, problem: { code: 'unparseable_row', message: 'x' } }
        : { row, offset: row, listing: { title: 'x'.repeat(size), row } };
    }
  }

  it('happy: makes batches of 100 listings; unparseable rows ride along unsent', async () => {
    const batches = [];
    for await (const batch of batchesOf(rowsOf(252, new Set([5, 101])))) batches.push(batch);
    expect(batches.map((b) => [b.number, b.firstRow, b.lastRow, b.listingRows.length])).toEqual([
      [1, 1, 102, 100],
      [2, 103, 202, 100],
      [3, 203, 252, 50],
    ]);
    expect(JSON.parse(batches[0]!.body!).listings).toHaveLength(100);
    expect(batches[0]!.listingRows).not.toContain(5);
  });

  it('error: closes a batch early before the body limit, and refuses a listing larger than a body', async () => {
    const batches = [];
    for await (const batch of batchesOf(rowsOf(5, new Set(), 400), { listings: 100, bytes: 1000 })) {
      batches.push(batch);
    }
    expect(batches.map((b) => b.listingRows)).toEqual([[1, 2], [3, 4], [5]]);
    for (const batch of batches) expect(Buffer.byteLength(batch.body!)).toBeLessThanOrEqual(1000);

    const huge = [];
    for await (const batch of batchesOf(rowsOf(2, new Set(), 2000), { listings: 100, bytes: 1000 })) {
      huge.push(batch);
    }
    expect(huge).toHaveLength(1);
    expect(huge[0]!.body).toBeUndefined();
    expect(huge[0]!.rows.map((r) => r.problem?.code)).toEqual(['row_too_large', 'row_too_large']);
  });
});
