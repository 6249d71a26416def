// Key names are labels people read (Keys page, `keys list`, the audit): control (Unicode Cc) and
// format (Cf) characters would make one name display as another, so `keys create --name` and
// POST /keys refuse them with a validation error naming the field and the character. Plain
// Unicode text (accents, Swahili, emoji) stays allowed.
import { describe, expect, it } from 'vitest';
import { keysCli } from '../support/auth.ts';
import { admin, createKey, expectError } from '../support/keys-api.ts';

// A newline, NUL, ESC, DEL (Cc); RIGHT-TO-LEFT OVERRIDE, ZERO WIDTH SPACE, BOM (Cf).
const refused: [string, string][] = [
  ['a\nb', '000A'],
  ['\u0000', '0000'],
  ['ok\u001b[31m', '001B'],
  ['del\u007f', '007F'],
  ['\u202eevil', '202E'],
  ['in\u200bvisible', '200B'],
  ['\ufeffbom', 'FEFF'],
];

describe('key names (security)', () => {
  it('POST /keys refuses names with control or format characters, naming the field and why', async () => {
    const boss = await admin();
    for (const [name, codePoint] of refused) {
      const response = await createKey(boss, { mode: 'live', name });
      expectError(response, 400, 'validation_failed');
      expect(response.body.error.details).toEqual([
        {
          field: 'name',
          code: 'invalid_characters',
          message: expect.stringContaining(`U+${codePoint}`),
        },
      ]);
      expect(response.body.error.details[0].message).toContain('control or format characters');
    }
    const accepted = await createKey(boss, { mode: 'live', name: 'Ofisi ya Mjini — café 🏠' });
    expect(accepted.status).toBe(201);
    expect(accepted.body.name).toBe('Ofisi ya Mjini — café 🏠');
  });

  it('keys create --name refuses them too, with exit code 2 and the reason on stderr', async () => {
    for (const [name, codePoint] of [refused[0]!, refused[4]!]) {
      const failure = (await keysCli('create', '--mode', 'test', '--tier', 'free', '--name', name).catch(
        (error: unknown) => error,
      )) as { code?: number; stderr?: string };
      expect(failure.code).toBe(2);
      expect(failure.stderr).toContain('--name');
      expect(failure.stderr).toContain(`U+${codePoint}`);
    }
    const created = await keysCli('create', '--mode', 'test', '--tier', 'free', '--name', 'Dar — café');
    expect((created.lines[0] as { name: string }).name).toBe('Dar — café');
  });
});
