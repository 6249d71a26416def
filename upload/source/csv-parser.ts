// A streaming RFC 4180 CSV parser: text goes in chunk by chunk (a record, a quoted field, even a
// CRLF may be split across chunks), complete records come out. No dependency: the uploader needs
// exact control over record numbering and over what happens after a broken record, which general
// parsers only offer as "stop" or "skip silently".
//
// RFC 4180: fields separated by `,`, records by CRLF (LF and lone CR are accepted too), fields with
// `,`, `"` or line breaks enclosed in `"`, a `"` inside such a field doubled (`""`).
// Deliberate leniencies, both of which keep every valid file's meaning:
// - a `"` inside an unquoted field is taken literally (`5" screen`), as spreadsheets write it;
// - a character after a closing quote (`"ab"c`) marks the record as broken (it is reported as one
//   unparseable row) and parsing resumes with the next record, instead of failing the whole file.
// Empty lines produce no record. An unterminated quoted field runs to the end of the file and is
// reported as one broken record, since nothing after it can be told apart from its content.

export interface CsvRecord {
  fields: string[];
  /** 1-based line of the file where the record starts. */
  line: number;
  /** Why the record is broken; its fields are then best effort. */
  error?: string;
}

const COMMA = 44;
const QUOTE = 34;
const LF = 10;
const CR = 13;

// Parser states.
const FIELD_START = 0;
const UNQUOTED = 1;
const QUOTED = 2;
/** A `"` inside a quoted field: either the first of `""` or the closing quote. */
const QUOTE_SEEN = 3;

export class CsvParser {
  private state = FIELD_START;
  private fields: string[] = [];
  private field = '';
  /** Something of the current record was read (so an empty line is not a record). */
  private inRecord = false;
  private error: string | undefined;
  private line = 1;
  private recordLine = 1;
  private quoteLine = 1;
  /** The previous chunk ended a record on CR: an LF right after belongs to it. */
  private skipLf = false;

  push(chunk: string): CsvRecord[] {
    const out: CsvRecord[] = [];
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      const c = chunk.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (c === LF) {
          i++;
          continue;
        }
      }
      switch (this.state) {
        case FIELD_START:
          if (c === QUOTE) {
            this.state = QUOTED;
            this.inRecord = true;
            this.quoteLine = this.line;
            i++;
          } else if (c === COMMA) {
            this.fields.push('');
            this.inRecord = true;
            i++;
          } else if (c === LF || c === CR) {
            if (this.inRecord) this.endRecord(out);
            this.newLine(c);
            i++;
          } else {
            this.state = UNQUOTED; // the character is read by the unquoted scan below
            this.inRecord = true;
          }
          break;
        case UNQUOTED: {
          let j = i;
          while (j < n) {
            const d = chunk.charCodeAt(j);
            if (d === COMMA || d === LF || d === CR) break;
            j++;
          }
          this.field += chunk.slice(i, j);
          if (j < n) this.delimiter(chunk.charCodeAt(j), out);
          i = j + 1;
          break;
        }
        case QUOTED: {
          let j = i;
          while (j < n) {
            const d = chunk.charCodeAt(j);
            if (d === QUOTE) break;
            if (d === LF) this.line++;
            j++;
          }
          this.field += chunk.slice(i, j);
          if (j < n) this.state = QUOTE_SEEN;
          i = j + 1;
          break;
        }
        case QUOTE_SEEN:
          if (c === QUOTE) {
            this.field += '"';
            this.state = QUOTED;
            i++;
          } else if (c === COMMA || c === LF || c === CR) {
            this.delimiter(c, out);
            i++;
          } else {
            this.error ??= `line ${this.line}: unexpected character after the closing quote of a field`;
            this.state = UNQUOTED; // keep the rest of the field as text, resync at the next delimiter
          }
          break;
      }
    }
    return out;
  }

  /** The end of the input: the last record, if the file does not end with a line break. */
  end(): CsvRecord[] {
    if (this.state === QUOTED) {
      this.error ??= `the quoted field opened on line ${this.quoteLine} is never closed`;
    }
    if (!this.inRecord) return [];
    const out: CsvRecord[] = [];
    this.endRecord(out);
    return out;
  }

  private delimiter(c: number, out: CsvRecord[]): void {
    if (c === COMMA) {
      this.fields.push(this.field);
      this.field = '';
      this.state = FIELD_START;
      return;
    }
    this.endRecord(out);
    this.newLine(c);
  }

  private endRecord(out: CsvRecord[]): void {
    this.fields.push(this.field);
    const record: CsvRecord = { fields: this.fields, line: this.recordLine };
    if (this.error) record.error = this.error;
    out.push(record);
    this.fields = [];
    this.field = '';
    this.error = undefined;
    this.inRecord = false;
    this.state = FIELD_START;
  }

  private newLine(c: number): void {
    this.line++;
    this.recordLine = this.line;
    if (c === CR) this.skipLf = true;
  }
}
