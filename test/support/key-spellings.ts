// Finds where Redis key names are spelled in TypeScript source: template literals that begin with
// the key prefix (`${prefix}batch:${id}:images`) or a hash-tag space of it
// (`${accountSpace(prefix, a)}quota:${a}` → "{a:*}:quota:*"), concatenations onto it (prefix + 'batch:'), and
// Lua concatenations of a name part inside script text (p .. 'usage:' .. id). Each spelling is
// reduced to a pattern, the text after the prefix with every substitution as `*`
// ("batch:*:images"; Lua ones as "lua:usage:"). Comments are not code and are not read.
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
const NAME_START = /^[a-z]/i;
/** Hash-tag spaces (common/redis-keys/tags.ts) called on the prefix, as their names' start. */
const SPACES: Record<string, string> = {
  accountSpace: '{a:*}:',
  apiKeySpace: '{k:*}:',
  listingBucketSpace: '{o:*}:',
  partSpace: '{g:*}:',
};

/** `{a:*}:` for `accountSpace(prefix, …)`, and so on; undefined for anything else. */
function spaceOf(expression: ts.Expression, source: ts.SourceFile): string | undefined {
  if (!ts.isCallExpression(expression) || !ts.isIdentifier(expression.expression)) return undefined;
  const space = SPACES[expression.expression.text];
  const [first] = expression.arguments;
  return space && first && PREFIX_EXPRESSION.test(first.getText(source)) ? space : undefined;
}
const LUA_NAME_PART = /\.\.\s*'([a-z][\w-]*:)/gi;

export function keySpellingsIn(file: string, text: string): KeySpelling[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: KeySpelling[] = [];
  const add = (node: ts.Node, pattern: string) =>
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, pattern });

  const visit = (node: ts.Node) => {
    if (ts.isTemplateExpression(node)) {
      const [first, ...rest] = node.templateSpans;
      const start =
        node.head.text === '' && first
          ? PREFIX_EXPRESSION.test(first.expression.getText(source))
            ? ''
            : spaceOf(first.expression, source)
          : undefined;
      if (start !== undefined && first && NAME_START.test(first.literal.text)) {
        add(node, start + first.literal.text + rest.map((span) => `*${span.literal.text}`).join(''));
      }
    }
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.PlusToken &&
      PREFIX_EXPRESSION.test(node.left.getText(source)) &&
      ts.isStringLiteralLike(node.right) &&
      NAME_START.test(node.right.text)
    ) {
      add(node, node.right.text);
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
