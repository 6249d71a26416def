// A cached Python virtualenv per requirements file (PyPI pins), under <cacheDir>/<name>/, named by
// the hash of the pins so a new pin gets a new one. Built beside its final name and renamed into
// place, so two test runs installing at the same time never share a half-written environment (the
// loser's copy is dropped). Dependency-free.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { aptInstall, commandExists, log, runStep } from './processes.mjs';

/** The virtualenv's python, with `requirements` installed. */
export async function ensureVenv(settings, name, requirements) {
  const pins = createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = path.join(settings.cacheDir, name, `venv-${pins}`);
  const python = path.join(venv, 'bin', 'python');
  if (fs.existsSync(path.join(venv, '.complete'))) return python;

  const building = `${venv}.tmp-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(venv), { recursive: true });
  if (!commandExists('python3')) aptInstall(name, ['python3', 'python3-venv']);
  try {
    await runStep('python3', ['-m', 'venv', building]);
  } catch {
    // Debian's python3 ships venv (ensurepip) separately.
    aptInstall(name, ['python3-venv']);
    fs.rmSync(building, { recursive: true, force: true });
    await runStep('python3', ['-m', 'venv', building]);
  }
  log(name, `installing ${fs.readFileSync(requirements, 'utf8').trim().split('\n').join(', ')} into ${venv}`);
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
