// The one convention for a test's category in its title (docs/testing.md, "Test names"): the
// categories, lower case, in front, then a colon: `happy: ...`, `error, security: ...`. Used by the
// unit test that checks every title in test/ and by infra/tools/normalize-test-titles.ts, which
// moves a category written elsewhere (`... (happy)`, `... (security: detail)`) to the front.
import fs from 'node:fs';
import path from 'node:path';

export const CATEGORIES = ['happy', 'error', 'security', 'edge'] as const;

/** How categories were also written: a plural, "happy path". */
const SPELLINGS: Record<string, (typeof CATEGORIES)[number]> = {
  happy: 'happy',
  'happy path': 'happy',
  error: 'error',
  errors: 'error',
  security: 'security',
  edge: 'edge',
};

export interface TitleAt {
  file: string;
  line: number;
  /** The title as written between its quotes (template literals keep their `${...}`). */
  title: string;
  /** Offsets of the title's text (without quotes) in the file. */
  start: number;
  end: number;
}

// it(...), test(...), it.skip(...), it.each(rows)(...): the first argument when it is a literal.
const TITLE =
  /(?<![.\w$])(?:it|test)(?:\.(?:only|skip|todo|fails|concurrent|sequential))*(?:\.each\([^()]*(?:\([^()]*\)[^()]*)*\))?\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;

/** The literal titles of the tests in a file's source. */
export function titlesIn(file: string, source: string): TitleAt[] {
  return [...source.matchAll(TITLE)].map((match) => {
    const start = match.index + match[0].length - match[2]!.length - 1;
    return {
      file,
      line: source.slice(0, start).split('\n').length,
      title: match[2]!,
      start,
      end: start + match[2]!.length,
    };
  });
}

/** Test files under `dir`, recursively. */
export function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.join(dir, name))
    .sort();
}

const FRONT = new RegExp(`^(?:${CATEGORIES.join('|')})(?:, (?:${CATEGORIES.join('|')}))*: `);
const ELSEWHERE = /[[(]\s*(?:happy|errors?|security|edge)\b/i;

/** Why the title breaks the convention, or undefined when it follows it. */
export function titleProblem(title: string): string | undefined {
  const front = FRONT.exec(title)?.[0];
  if (front) {
    const named = front.slice(0, -2).split(', ');
    if (new Set(named).size !== named.length) return 'names a category twice';
  } else if (/^(?:happy|errors?|security|edge)\b/i.test(title)) {
    return 'a category in front is lower case, comma-separated, then ": " (e.g. "happy, error: ")';
  }
  const rest = front ? title.slice(front.length) : title;
  if (ELSEWHERE.test(rest)) return 'a category goes in front ("happy: ..."), not in brackets';
  return undefined;
}

/** The trailing "(happy, error)" or "(security: detail)" of a title, if it is a category group. */
function trailingCategories(
  title: string,
): { rest: string; categories: string[]; detail: string } | undefined {
  const match = /\s*\(([^()]*)\)$/.exec(title);
  if (!match) return undefined;
  const [tags, ...detail] = match[1]!.split(/[;:]/);
  const categories = tags!.split(/,|\+/).map((word) => SPELLINGS[word.trim().toLowerCase()]);
  if (categories.some((category) => category === undefined)) return undefined;
  return {
    rest: title.slice(0, match.index),
    categories: categories as string[],
    detail: detail.join(':').trim(),
  };
}

/** The title with its categories in front, in the order of CATEGORIES; other titles unchanged. */
export function withCategoriesInFront(title: string): string {
  const trailing = trailingCategories(title);
  if (!trailing) return title;
  let rest = trailing.rest;
  const categories = new Set(trailing.categories);
  const front = FRONT.exec(rest)?.[0];
  if (front) {
    for (const category of front.slice(0, -2).split(', ')) categories.add(category);
    rest = rest.slice(front.length);
  }
  const ordered = CATEGORIES.filter((category) => categories.has(category));
  return `${ordered.join(', ')}: ${rest}${trailing.detail ? ` (${trailing.detail})` : ''}`;
}
