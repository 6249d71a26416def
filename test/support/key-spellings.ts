// Finds where Redis key names are spelled in TypeScript source: template literals that begin with
// the key prefix (`${prefix}batch:${id}:images`), concatenations onto it (prefix + 'batch:'), and
// Lua concatenations of a name part inside script text (p .. 'usage:' .. id). Each spelling is
// reduced to a pattern, the text after the prefix with every substitution as `*`
// ("batch:*:images"; Lua ones as "lua:usage:"). A name in a tag space of common/redis-keys/tags.ts
// (`${accountSpace(prefix, id)}quota:`) keeps its tag, the id as `*` ("{a:*}:quota:"), and a key with a
// tag of its own (`${prefix}{workers}`) keeps its braces. Comments are not code and are not read.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface KeySpelling {
  file: string;
  line: number;
  pattern: string;
}

/** Expressions that hold REDIS_KEY_PREFIX: `prefix`, `deps.prefix`, `options.keyPrefix`, `env.REDIS_KEY_PREFIX`. */
const PREFIX_EXPRESSION = /(^|\.)(prefix|keyPrefix|REDIS_KEY_PREFIX)$/;
const NAME_START = /^[a-z{]/i;
/** The tag-space builders of common/redis-keys/tags.ts, by the start of the names they make. */
const TAG_SPACES: Record<string, string> = {
  accountSpace: '{a:*}:',
  apiKeySpace: '{k:*}:',
  listingBucketSpace: '{o:*}:',
  partSpace: '{g:*}:',
};
const LUA_NAME_PART = /\.\.\s*'([a-z][\w-]*:)/gi;

export function keySpellingsIn(file: string, text: string): KeySpelling[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: KeySpelling[] = [];
  const add = (node: ts.Node, pattern: string) => {
    // A tag space alone (tags.ts builds them) is the start of names, not a name.
    if (Object.values(TAG_SPACES).includes(pattern)) return;
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, pattern });
  };

  /** What a name starts with when `expression` is the prefix ('') or a tag space on it, else null. */
  const start = (expression: ts.Expression): string | null => {
    if (PREFIX_EXPRESSION.test(expression.getText(source))) return '';
    if (!ts.isCallExpression(expression) || !ts.isIdentifier(expression.expression)) return null;
    const space = TAG_SPACES[expression.expression.text];
    const [prefix] = expression.arguments;
    return space && prefix && PREFIX_EXPRESSION.test(prefix.getText(source)) ? space : null;
  };

  const visit = (node: ts.Node) => {
    if (ts.isTemplateExpression(node)) {
      const [first, ...rest] = node.templateSpans;
      const head = first && node.head.text === '' ? start(first.expression) : null;
      if (first && head !== null && (head || NAME_START.test(first.literal.text))) {
        add(node, head + first.literal.text + rest.map((span) => `*${span.literal.text}`).join(''));
      }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const head = start(node.left);
      if (head !== null && ts.isStringLiteralLike(node.right) && (head || NAME_START.test(node.right.text)))
        add(node, head + node.right.text);
    }
    const literalText =
      ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) ? node.text : undefined;
    if (literalText !== undefined) {
      for (const match of literalText.matchAll(LUA_NAME_PART)) add(node, `lua:${match[1]}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every `.ts` file under `dirs` (relative to `root`), as repository paths with forward slashes. */
export function sourceFiles(root: string, dirs: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(relative);
      else if (entry.isFile() && entry.name.endsWith('.ts')) files.push(relative);
    }
  };
  for (const dir of dirs) walk(dir);
  return files.sort();
}

export function keySpellingsUnder(root: string, dirs: readonly string[]): KeySpelling[] {
  return sourceFiles(root, dirs).flatMap((file) =>
    keySpellingsIn(file, readFileSync(path.join(root, file), 'utf8')),
  );
}
