// The package's `prepare` build, dependency-free (npm runs it on `npm install <path>` without
// installing devDependencies): dist/operations.js, the table of every operation of the bundled
// openapi.json (method, path, parameters, body) the client's methods are made from, and the
// runtime and type files copied beside it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const document = JSON.parse(fs.readFileSync(path.join(root, 'openapi.json'), 'utf8'));
const dist = path.join(root, 'dist');
fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(dist);

const operations = {};
for (const [template, item] of Object.entries(document.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (!op || typeof op !== 'object' || !op.operationId) continue;
    const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])];
    const names = (where) => parameters.filter((p) => p.in === where).map((p) => p.name);
    operations[op.operationId] = {
      method: method.toUpperCase(),
      path: template,
      // Paths outside /api/v1 (pages, health, metrics) name their own server: the origin.
      outsideApiPrefix: Boolean(op.servers?.some((s) => s.url === '/')),
      pathParams: names('path'),
      queryParams: names('query'),
      idempotencyKey: names('header').includes('Idempotency-Key'),
      body: op.requestBody ? (op.requestBody.required ? 'required' : 'optional') : 'none',
    };
  }
}
fs.writeFileSync(
  path.join(dist, 'operations.js'),
  `// Built from openapi.json by scripts/build.mjs.\nexport const operations = ${JSON.stringify(operations, null, 2)};\n`,
);
for (const file of fs.readdirSync(path.join(root, 'src'))) {
  fs.copyFileSync(path.join(root, 'src', file), path.join(dist, file));
}
