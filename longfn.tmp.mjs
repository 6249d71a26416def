import ts from 'typescript';
import fs from 'node:fs';
import { execSync } from 'node:child_process';
const files = execSync("git ls-files '*.ts' '*.mjs' '*.js' | grep -v '^test/\\|d.mts$\\|^dist/\\|generated\\|^clients/'", { encoding: 'utf8' }).trim().split('\n');
const out = [];
for (const f of files) {
  const src = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionLike(n) && n.body) {
      const a = src.getLineAndCharacterOfPosition(n.getStart()).line, b = src.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (b - a + 1 > 100) out.push([b - a + 1, `${f}:${a + 1}`, n.name?.getText?.() ?? '(anon)']);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
}
out.sort((x, y) => y[0] - x[0]);
for (const o of out) console.log(o.join('  '));
