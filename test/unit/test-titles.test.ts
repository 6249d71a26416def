// Every test title in test/ writes its category the one way (docs/testing.md, "Test names"):
// lower case, in front, then a colon. A static scan of the files; nothing runs.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testFiles, titleProblem, titlesIn, withCategoriesInFront } from '../support/test-titles.ts';

const testDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('test titles', () => {
  it('error: every title in test/ has its categories in front, or none', () => {
    const titles = testFiles(testDir).flatMap((file) => titlesIn(file, fs.readFileSync(file, 'utf8')));
    expect(titles.length).toBeGreaterThan(500); // the scan finds the titles at all
    const broken = titles
      .map((at) => ({ at, problem: titleProblem(at.title) }))
      .filter(({ problem }) => problem !== undefined)
      .map(({ at, problem }) => `${path.relative(testDir, at.file)}:${at.line}: ${problem}: ${at.title}`);
    expect(broken).toEqual([]);
  });

  it('happy: accepts categories in front and titles without one', () => {
    for (const title of ['happy: stores a listing', 'error, security: refuses a key', 'stores a listing'])
      expect(titleProblem(title)).toBeUndefined();
  });

  it('error: refuses a category at the end, in brackets, capitalised or named twice', () => {
    for (const title of [
      'stores a listing (happy)',
      'refuses a key (security: tenant isolation)',
      '[happy] stores a listing',
      'Happy: stores a listing',
      'error, error: refuses a key',
    ])
      expect(titleProblem(title), title).toBeDefined();
  });

  it('happy: the rewrite moves a trailing category group to the front, keeping its detail', () => {
    expect(withCategoriesInFront('stores a listing (happy)')).toBe('happy: stores a listing');
    expect(withCategoriesInFront('refuses a key (security, error)')).toBe('error, security: refuses a key');
    expect(withCategoriesInFront('same cells (happy; seed ${seed})')).toBe(
      'happy: same cells (seed ${seed})',
    );
    expect(withCategoriesInFront('error: refuses (security)')).toBe('error, security: refuses');
    expect(withCategoriesInFront('stores a listing (in one batch)')).toBe('stores a listing (in one batch)');
  });

  it('happy: finds titles of it, test, it.skip and it.each, and not RegExp test calls', () => {
    const source = [
      "it('happy: one', () => {});",
      'test(`two ${x}`, () => {});',
      "it.skip('three', () => {});",
      "it.each([1, 2])('four %s', () => {});",
      "if (/x/.test('not a title')) return;",
    ].join('\n');
    expect(titlesIn('x.test.ts', source).map((at) => at.title)).toEqual([
      'happy: one',
      'two ${x}',
      'three',
      'four %s',
    ]);
  });
});
