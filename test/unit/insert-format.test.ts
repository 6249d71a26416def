// The writer's insert body: rows as arrays in the insert's column order, or objects when a row lacks
// a column's value (an array could only send null there, where JSONEachRow leaves the DEFAULT).
import { describe, expect, it } from 'vitest';
import { insertBody } from '../../stream/sink/insert-format.ts';

describe('insert body', () => {
  it('sends each row as the array of its values in column order', () => {
    const rows = [
      { b: 'x', a: 1, c: null },
      { a: 2, b: 'y', c: [1] },
    ];
    expect(insertBody(rows, ['a', 'b', 'c'])).toEqual({
      format: 'JSONCompactEachRow',
      values: [
        [1, 'x', null],
        [2, 'y', [1]],
      ],
    });
  });

  it('falls back to objects when a row has no value for a column', () => {
    const rows = [{ a: 1, b: 'x' }, { a: 2 }] as { a: number; b?: string }[];
    expect(insertBody(rows, ['a', 'b'])).toEqual({ format: 'JSONEachRow', values: rows });
  });
});
