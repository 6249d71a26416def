// The gradient-boosting reference: gbm.py (scikit-learn's HistGradientBoostingRegressor on place,
// type, bedrooms, bathrooms and floor area) fit on the same training listings as the estimate, in a
// virtualenv of its own under RENTS_DATA_DIR with the pinned requirements.txt, built by pip on first
// use (one per requirements file: its hash names the folder). Only the evaluation runs it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RentRow } from './shape.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const run = (command: string, args: string[]) =>
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });

function referencePython(dataDir: string): string {
  const requirements = path.join(here, 'requirements.txt');
  const pins = createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = path.join(dataDir, `venv-${pins}`);
  const python = path.join(venv, 'bin', 'python');
  if (fs.existsSync(python)) return python;
  const building = `${venv}.tmp-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  process.stderr.write(
    '[rents] installing the reference model (numpy, pandas, scikit-learn) into its virtualenv\n',
  );
  run('python3', ['-m', 'venv', building]);
  run(path.join(building, 'bin', 'python'), [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '-r',
    requirements,
  ]);
  fs.renameSync(building, venv);
  return python;
}

const cell = (v: number | null) => (v === null ? '' : String(v));
const csv = (rows: RentRow[], withRent: boolean) =>
  [
    `id,latitude,longitude,property_type,bedrooms,bathrooms,area_sqm${withRent ? ',rent' : ''}`,
    ...rows.map((r) =>
      [r.id, r.latitude, r.longitude, r.type, cell(r.bedrooms), cell(r.bathrooms), cell(r.areaSqm)]
        .concat(withRent ? [r.rent] : [])
        .join(','),
    ),
  ].join('\n') + '\n';

/** Predicted rent per subject id. */
export function gbmPredictions(dataDir: string, train: RentRow[], subjects: RentRow[]): Map<string, number> {
  const python = referencePython(dataDir);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'rents-gbm-'));
  try {
    fs.writeFileSync(path.join(folder, 'train.csv'), csv(train, true));
    fs.writeFileSync(path.join(folder, 'test.csv'), csv(subjects, false));
    run(python, [path.join(here, 'gbm.py'), folder]);
    const [, ...lines] = fs.readFileSync(path.join(folder, 'predictions.csv'), 'utf8').trim().split('\n');
    return new Map(
      lines.map((line) => line.split(',') as [string, string]).map(([id, rent]) => [id, Number(rent)]),
    );
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}
