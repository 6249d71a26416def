// What every reader (CSV, NDJSON, JSON array) yields: one entry per data row of the file, in file
// order. A row the client cannot even turn into a listing (malformed JSON, a broken CSV record)
// carries a `problem` instead of a `listing`: it is reported, never sent. Everything else is sent
// as is, so the server's own validation names the per-field errors.

export interface RowProblem {
  code: string;
  message: string;
}

export interface SourceRow {
  /** 1-based number of the data row (CSV header and blank lines not counted). */
  row: number;
  /** Bytes of the file read when this row was complete (progress and ETA only). */
  offset: number;
  listing?: unknown;
  problem?: RowProblem;
}

export const UNPARSEABLE_ROW = 'unparseable_row';
