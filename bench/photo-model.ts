// npm run bench:photo-model — the scene model alone (stream/images/scene-model.ts): ms per photo
// for batches of 1, 4 and 8 photos and 1 or 2 onnxruntime threads, on the eval photos' 224 px
// inputs, with the machine's load average beside each figure (shared machines vary). Knobs:
// BENCH_PHOTOS (48 per setting), PHOTO_MODEL_PATH (default: the provisioned model).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { readSettings, repoRoot } from '../infra/local/settings.mjs';
import { decodePhoto } from '../stream/images/decode.ts';
import { loadSceneModel } from '../stream/images/scene-model.ts';

const perSetting = Number(process.env.BENCH_PHOTOS ?? 48);
const modelPath = process.env.PHOTO_MODEL_PATH || (await ensurePhotoModel(readSettings(process.env)));
const dir = path.join(repoRoot, 'eval/rooms/Kitchen');
const inputs: Uint8Array[] = [];
for (const file of fs.readdirSync(dir).slice(0, 16)) {
  const decoded = await decodePhoto(fs.readFileSync(path.join(dir, file)), { maxPixels: 4e7, minSide: 32 });
  if (decoded.ok) inputs.push(decoded.photo.modelRgb);
}

console.log(
  `scene model ${path.basename(modelPath)}, ${perSetting} photos per setting, ${os.cpus().length} cores`,
);
console.log('threads  batch  ms/photo  photos/s  load average (1 min)');
for (const threads of [1, 2])
  for (const batch of [1, 4, 8]) {
    const model = await loadSceneModel(modelPath, { threads, maxBatch: batch });
    await Promise.all(inputs.slice(0, batch).map((rgb) => model.classify(rgb))); // warm-up
    const started = performance.now();
    for (let done = 0; done < perSetting; done += batch)
      await Promise.all(
        Array.from({ length: batch }, (_, i) => model.classify(inputs[(done + i) % inputs.length]!)),
      );
    const ms = (performance.now() - started) / perSetting;
    console.log(
      `${String(threads).padStart(7)}  ${String(batch).padStart(5)}  ${ms.toFixed(0).padStart(8)}  ${(1000 / ms).toFixed(1).padStart(8)}  ${os.loadavg()[0]!.toFixed(1)}`,
    );
    await model.release();
  }
