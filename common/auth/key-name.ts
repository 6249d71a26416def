// A key's name, as `keys create --name` and POST /keys take it: a label people read on the Keys
// page, in `keys list` and in the audit. Well-formed Unicode (text()), at most 200 characters, and
// no control (Unicode Cc: newline, NUL, ESC …) or format (Cf: bidi overrides such as U+202E, zero-
// width joiners …) characters: those make one name display as another — a line break fakes an
// audit entry, U+202E shows "evil" backwards — so they are refused, not stripped (a stripped name
// would not be the one the caller typed).
import { text } from '../domain/text.ts';

export const KEY_NAME_MAX_LENGTH = 200;
export const KEY_NAME_CHARACTERS_CODE = 'invalid_characters';
const controlOrFormat = /[\p{Cc}\p{Cf}]/u;

export const keyNameSchema = text()
  .max(KEY_NAME_MAX_LENGTH)
  .superRefine((value, ctx) => {
    const found = controlOrFormat.exec(value);
    if (!found) return;
    const codePoint = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    ctx.addIssue({
      code: 'custom',
      params: { code: KEY_NAME_CHARACTERS_CODE },
      message:
        `name must not contain control or format characters (Unicode Cc, Cf): it holds U+${codePoint} ` +
        `at position ${found.index}; line breaks, NUL and bidi overrides would make it display as another name`,
    });
  });
