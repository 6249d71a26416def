// CSV file → listings: the first non-blank record is the header (column names are listing field
// names), every later record one data row. Rows whose cells are all empty (blank lines, `,,,` rows
// that spreadsheets leave at the end) are not rows. A record the client cannot map — a broken
// quote, a cell count that differs from the header — is an `unparseable_row`, never a guess.
import { FatalError } from '../fatal.ts';
import { CsvParser, type CsvRecord } from './csv-parser.ts';
import { cellValue, listingFieldKinds, type FieldKind } from './fields.ts';
import { UNPARSEABLE_ROW, type SourceRow } from './rows.ts';
import type { TextSource } from './decode.ts';

export interface CsvOptions {
  label: string;
  warn(message: string): void;
}

export async function* csvRows(source: TextSource, options: CsvOptions): AsyncGenerator<SourceRow> {
  const parser = new CsvParser();
  let columns: { name: string; kind: FieldKind | undefined }[] | undefined;
  let row = 0;
  const records = async function* (): AsyncGenerator<CsvRecord> {
    for await (const chunk of source.chunks) yield* parser.push(chunk);
    yield* parser.end();
  };
  for await (const record of records()) {
    if (record.fields.every((cell) => cell.trim() === '') && !record.error) continue;
    if (!columns) {
      columns = headerOf(record, options);
      continue;
    }
    row++;
    const offset = source.bytesRead();
    if (record.error) {
      yield { row, offset, problem: { code: UNPARSEABLE_ROW, message: record.error } };
    } else if (record.fields.length !== columns.length) {
      yield {
        row,
        offset,
        problem: {
          code: UNPARSEABLE_ROW,
          message: `line ${record.line}: ${record.fields.length} cells, but the header has ${columns.length} columns`,
        },
      };
    } else {
      const listing: Record<string, unknown> = {};
      columns.forEach((column, i) => {
        const value = cellValue(column.kind, record.fields[i]!);
        if (value !== undefined) listing[column.name] = value;
      });
      yield { row, offset, listing };
    }
  }
  if (!columns) throw new FatalError(`${options.label} has no CSV header row (it is empty)`);
}

function headerOf(record: CsvRecord, options: CsvOptions): { name: string; kind: FieldKind | undefined }[] {
  const unreadable = (why: string) =>
    new FatalError(`${options.label} is not a readable listings CSV: ${why}`);
  if (record.error) throw unreadable(`its header row is broken (${record.error})`);
  const names = record.fields.map((name) => name.trim());
  const blank = names.findIndex((name) => name === '');
  if (blank >= 0) throw unreadable(`header column ${blank + 1} has no name`);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw unreadable(`the header names column "${name}" twice`);
    seen.add(name);
  }
  const unknown = names.filter((name) => !listingFieldKinds.has(name));
  if (unknown.length === names.length) {
    throw unreadable(
      `no header column is a listing field (got ${JSON.stringify(names.slice(0, 5).join(',').slice(0, 120))}; ` +
        `expected comma-separated names such as title,description,property_type,price)`,
    );
  }
  if (unknown.length) {
    options.warn(
      `columns ${unknown.map((name) => JSON.stringify(name)).join(', ')} are not listing fields; ` +
        `the API will refuse every row that fills them (unknown_field)`,
    );
  }
  return names.map((name) => ({ name, kind: listingFieldKinds.get(name) }));
}
