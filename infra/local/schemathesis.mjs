// Schemathesis (PyPI, pinned in infra/local/schemathesis/requirements.txt) for the OpenAPI
// conformance test of `npm test` (test/integration/openapi-conformance.test.ts), in a virtualenv of
// its own under <cacheDir>/schemathesis/, named by the hash of the requirements so a new pin gets a
// new one. Built beside its final name and renamed into place, so two test runs installing at the
// same time never share a half-written environment (the loser's copy is dropped). Dependency-free.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { aptInstall, commandExists, log, runStep } from './processes.mjs';
import { repoRoot } from './settings.mjs';

const conf = path.join(repoRoot, 'infra/local/schemathesis');

/** The virtualenv's python, with Schemathesis installed (`python -m schemathesis.cli …` runs it). */
export async function ensureSchemathesis(settings) {
  const requirements = path.join(conf, 'requirements.txt');
  const pins = createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = path.join(settings.cacheDir, 'schemathesis', `venv-${pins}`);
  const python = path.join(venv, 'bin', 'python');
  if (fs.existsSync(path.join(venv, '.complete'))) return python;

  const building = `${venv}.tmp-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(venv), { recursive: true });
  if (!commandExists('python3')) aptInstall('schemathesis', ['python3', 'python3-venv']);
  try {
    await runStep('python3', ['-m', 'venv', building]);
  } catch {
    // Debian's python3 ships venv (ensurepip) separately.
    aptInstall('schemathesis', ['python3-venv']);
    fs.rmSync(building, { recursive: true, force: true });
    await runStep('python3', ['-m', 'venv', building]);
  }
  log('schemathesis', `installing ${fs.readFileSync(requirements, 'utf8').trim()} into ${venv}`);
  const buildingPython = path.join(building, 'bin', 'python');
  await runStep(buildingPython, [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '-r',
    requirements,
  ]);
  fs.writeFileSync(path.join(building, '.complete'), '');
  try {
    fs.renameSync(building, venv);
  } catch {
    fs.rmSync(building, { recursive: true, force: true }); // another run finished first
  }
  return python;
}
