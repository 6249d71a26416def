// Moves the category of every test title in test/ to the front (test/support/test-titles.ts):
// `... (happy)` → `happy: ...`, `... (security: detail)` → `security: ... (detail)`. Mechanical and
// idempotent, so it can be run again on work merged later: `npx tsx infra/tools/normalize-test-titles.ts`.
// Prints the titles it could not fix (a category in the middle of a title), to be fixed by hand.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testFiles, titleProblem, titlesIn, withCategoriesInFront } from '../../test/support/test-titles.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let changed = 0;
for (const file of testFiles(path.join(root, 'test'))) {
  const source = fs.readFileSync(file, 'utf8');
  let rewritten = source;
  // From the end, so earlier offsets stay valid.
  for (const at of titlesIn(file, source).reverse()) {
    const title = withCategoriesInFront(at.title);
    if (title !== at.title) rewritten = rewritten.slice(0, at.start) + title + rewritten.slice(at.end);
  }
  if (rewritten !== source) {
    fs.writeFileSync(file, rewritten);
    changed++;
  }
  for (const at of titlesIn(file, rewritten)) {
    const problem = titleProblem(at.title);
    if (problem) console.log(`${path.relative(root, file)}:${at.line}: ${problem}: ${at.title}`);
  }
}
console.log(`${changed} files rewritten`);
