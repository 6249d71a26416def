// The body checks that run before and after JSON.parse (common/http/json-body.ts), and the listing
// id derivation (common/ids.ts): both were rewritten for CPU, so these pin their results.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, maxNestingDepth, parseJsonSafely } from '../../common/http/json-body.ts';
import { deterministicUuid } from '../../common/ids.ts';

describe('maxNestingDepth (happy)', () => {
  it('counts brackets outside strings only', () => {
    expect(maxNestingDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(maxNestingDepth('{"a":"[[[[{{{{"}')).toBe(1);
    expect(maxNestingDepth('[]')).toBe(1);
    expect(maxNestingDepth('42')).toBe(0);
  });

  it('treats an escaped quote as part of the string, and an escaped backslash as ending before the quote', () => {
    expect(maxNestingDepth('{"a":"x\\"[[["}')).toBe(1); // "x\"[[[" is one string
    expect(maxNestingDepth('{"a":"x\\\\","b":[[[]]]}')).toBe(4); // "x\\" ends, then brackets count
    expect(maxNestingDepth('{"a":"\\\\\\"[[","b":[]}')).toBe(2); // \\ \" then [[ inside the string
  });

  it('agrees with JSON.parse on the depth of generated documents', () => {
    const nest = (depth: number): unknown =>
      depth === 0 ? 'leaf "[{" \\' : depth % 2 ? [nest(depth - 1), '"]'] : { k: nest(depth - 1), s: '\\"{' };
    for (let depth = 0; depth < 40; depth++) {
      expect(maxNestingDepth(JSON.stringify(nest(depth)))).toBe(depth);
    }
  });
});

describe('maxNestingDepth (error)', () => {
  it('stops at an unterminated string (JSON.parse then reports the syntax error)', () => {
    expect(maxNestingDepth('[["abc')).toBe(2);
    expect(() => parseJsonSafely('[["abc')).toThrow(/not valid JSON/);
  });
});

describe('parseJsonSafely (security)', () => {
  it(`refuses nesting deeper than ${MAX_JSON_DEPTH} before parsing, and accepts exactly ${MAX_JSON_DEPTH}`, () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(() => parseJsonSafely(deep(MAX_JSON_DEPTH + 1))).toThrow(/nesting depth 33 exceeds/);
    expect(parseJsonSafely(deep(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
  });

  it('refuses prototype keys, also when spelled with escapes', () => {
    expect(() => parseJsonSafely('{"a":[{"__proto__":{}}]}')).toThrow(/"__proto__" is not allowed/);
    expect(() => parseJsonSafely('{"\\u005f\\u005fproto__":1}')).toThrow(/is not allowed/);
  });
});

describe('deterministicUuid (happy)', () => {
  it('derives the same ids as before the one-shot hash (stored listings keep their ids)', () => {
    // Vectors computed with the earlier createHash('sha1').update(namespace).update(name) version.
    expect(deterministicUuid('listing|acct_1|live|v1|apartment|flat|a:masaki|500000TZS|2|1')).toBe(
      '21c399fc-ab0c-5984-b99b-b665c5609bc0',
    );
    expect(deterministicUuid('listing|acct_é|test|ext|Ü-42')).toBe('2cbece21-bc44-513e-b658-ee79dd565ea4');
  });
});
