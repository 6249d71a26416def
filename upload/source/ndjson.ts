// NDJSON file → listings: one JSON value per line, sent as it is. Blank lines are not rows. A line
// that is not JSON is an `unparseable_row` — except the first, which decides whether the file is
// NDJSON at all (a CSV or a pretty-printed JSON file fails there, once, instead of on every line).
import { FatalError } from '../fatal.ts';
import type { TextSource } from './decode.ts';
import { UNPARSEABLE_ROW, type SourceRow } from './rows.ts';

export async function* ndjsonRows(source: TextSource, options: { label: string }): AsyncGenerator<SourceRow> {
  let pending = '';
  let row = 0;
  let line = 0;
  const parse = (text: string): SourceRow | undefined => {
    line++;
    if (text.trim() === '') return undefined;
    row++;
    const offset = source.bytesRead();
    try {
      return { row, offset, listing: JSON.parse(text) };
    } catch (error) {
      const reason = (error as Error).message;
      if (row === 1) {
        throw new FatalError(
          `${options.label} is not readable as NDJSON: line ${line} is not JSON (${reason}); ` +
            `expected one listing object per line, or name the format with --format csv|json`,
        );
      }
      return {
        row,
        offset,
        problem: { code: UNPARSEABLE_ROW, message: `line ${line}: not valid JSON (${reason})` },
      };
    }
  };
  for await (const chunk of source.chunks) {
    pending += chunk;
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
      const parsed = parse(pending.slice(start, end));
      if (parsed) yield parsed;
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  const last = parse(pending);
  if (last) yield last;
}
