// The string building block of every input schema: text must be well-formed Unicode. JSON lets a
// client send a lone UTF-16 surrogate ("\ud800"), which JavaScript strings hold but UTF-8 cannot
// encode: ClickHouse refuses the insert (CANNOT_PARSE_ESCAPE_SEQUENCE) or stores invalid bytes, and
// URL parsers quietly replace it. Such strings are refused at the door, with the per-field code
// `invalid_string` (ingest/validation/field-errors.ts), so they are never accepted and published.
import { z } from 'zod';

declare global {
  interface String {
    /** ES2024 (Node ≥ 20); the ES2022 lib this project compiles against does not declare it. */
    isWellFormed(): boolean;
  }
}

export const INVALID_STRING = 'invalid_string';
/** The check's message; field-errors.ts puts the field's name in front of it. */
export const NOT_WELL_FORMED_MESSAGE =
  'must be well-formed Unicode text (it holds a lone UTF-16 surrogate, e.g. \\ud800 without its pair)';

/**
 * A check for the start of a string schema (`text()` puts it there). It aborts: the checks after it
 * (trimming, lengths, URL/UUID/date formats) do not run, so the field reports this one error.
 */
export const wellFormedUnicode = z.refine<string>((value) => value.isWellFormed(), {
  abort: true,
  params: { code: INVALID_STRING },
  message: NOT_WELL_FORMED_MESSAGE,
});

/**
 * `z.string()` refusing text that is not well-formed Unicode. Chain the usual methods after it;
 * formats go in as checks so they run after this one: `text().check(z.url(…)).max(2048)`.
 */
export const text = () => z.string().check(wellFormedUnicode);
