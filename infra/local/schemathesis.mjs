// Schemathesis (PyPI, pinned in infra/local/schemathesis/requirements.txt) for the OpenAPI
// conformance test of `npm test` (test/integration/openapi-conformance.test.ts), in a virtualenv of
// its own under <cacheDir>/schemathesis/ (venv.mjs). Dependency-free.
import path from 'node:path';
import { repoRoot } from './settings.mjs';
import { ensureVenv } from './venv.mjs';

const conf = path.join(repoRoot, 'infra/local/schemathesis');

/** The virtualenv's python, with Schemathesis installed (`python -m schemathesis.cli …` runs it). */
export function ensureSchemathesis(settings) {
  return ensureVenv(settings, 'schemathesis', path.join(conf, 'requirements.txt'));
}
