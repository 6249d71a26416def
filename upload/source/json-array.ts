// JSON array file → listings, one element at a time: a small scanner finds where each top-level
// element starts and ends (tracking strings, escapes and bracket depth), and only that element's
// text is handed to JSON.parse. So a file of any size streams, and one malformed element becomes
// an `unparseable_row` while the elements around it are still uploaded.
import { FatalError } from '../fatal.ts';
import type { TextSource } from './decode.ts';
import { UNPARSEABLE_ROW, type SourceRow } from './rows.ts';

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;
const QUOTE = 34;
const BACKSLASH = 92;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

export async function* jsonArrayRows(
  source: TextSource,
  options: { label: string; warn(message: string): void },
): AsyncGenerator<SourceRow> {
  let phase: 'before' | 'inside' | 'after' = 'before';
  let element = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let row = 0;
  let trailingWarned = false;

  const finish = (): SourceRow => {
    row++;
    const text = element.trim();
    element = '';
    const offset = source.bytesRead();
    if (text === '') {
      return {
        row,
        offset,
        problem: { code: UNPARSEABLE_ROW, message: 'empty array element (two commas in a row?)' },
      };
    }
    try {
      return { row, offset, listing: JSON.parse(text) };
    } catch (error) {
      return {
        row,
        offset,
        problem: {
          code: UNPARSEABLE_ROW,
          message: `element ${row} is not valid JSON (${(error as Error).message})`,
        },
      };
    }
  };

  for await (const chunk of source.chunks) {
    const rows: SourceRow[] = [];
    let start = 0; // start of the element text not yet copied into `element`
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (phase === 'before') {
        if (isSpace(c)) continue;
        if (c !== OPEN_BRACKET) {
          throw new FatalError(
            `${options.label} is not readable as a JSON array of listings: it starts with ` +
              `${JSON.stringify(chunk[i])}` +
              (c === OPEN_BRACE ? ' (an object; for one object per line use --format ndjson)' : '') +
              `; expected [{…}, {…}]`,
          );
        }
        phase = 'inside';
        start = i + 1;
        continue;
      }
      if (phase === 'after') {
        if (!isSpace(c) && !trailingWarned) {
          options.warn(`${options.label}: ignoring text after the closing ] of the array`);
          trailingWarned = true;
        }
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
        continue;
      }
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth--;
      else if (depth === 0 && (c === COMMA || c === CLOSE_BRACKET)) {
        element += chunk.slice(start, i);
        start = i + 1;
        // `[]` has no element; `[…, x]` ends with one; a comma always ends one.
        if (c === COMMA || element.trim() !== '' || row > 0) rows.push(finish());
        if (c === CLOSE_BRACKET) phase = 'after';
      }
    }
    if (phase === 'inside') element += chunk.slice(start);
    yield* rows;
  }
  if (phase === 'before')
    throw new FatalError(`${options.label} is empty; expected a JSON array of listings`);
  if (phase === 'inside') {
    options.warn(`${options.label} ends inside the JSON array (no closing ]); was it cut off?`);
    if (element.trim() !== '') yield finish();
  }
}
