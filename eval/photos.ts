// `npm run eval:photos`: the photo model against the curated photos in eval/photos/ (sources and
// licences in SOURCES.md, expected RESO ImageOf values in manifest.json), through the same decode
// and tagging code as the stream worker. Prints each photo's verdict, per-tag precision and recall,
// the abstain rate at the configured threshold, and the same figures at other thresholds.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodePhoto } from '../stream/images/decode.ts';
import { photoEnvSchema } from '../stream/images/photo-env.ts';
import { ABSTAIN, roomTags } from '../stream/images/room-tags.ts';
import { loadPhotoModel } from '../stream/images/tagger.ts';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { readSettings } from '../infra/local/settings.mjs';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'photos');
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
  photos: { file?: string; generated?: 'dark' | 'noise'; expected: string }[];
};
const env = photoEnvSchema.parse(process.env);
const modelPath = env.PHOTO_MODEL_PATH ?? (await ensurePhotoModel(readSettings(process.env)));
const model = await loadPhotoModel(modelPath);

async function bytesOf(entry: (typeof manifest.photos)[number]): Promise<Buffer> {
  if (entry.file) return fs.readFileSync(path.join(dir, entry.file));
  if (entry.generated === 'dark')
    return sharp(path.join(dir, 'kitchen.jpg')).linear(0.04, 0).jpeg().toBuffer();
  const side = 256;
  const pixels = Buffer.alloc(side * side);
  let seed = 42; // fixed, so every run sees the same noise
  for (let i = 0; i < pixels.length; i++) pixels[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  return sharp(pixels, { raw: { width: side, height: side, channels: 1 } })
    .png()
    .toBuffer();
}

const scored: { name: string; expected: string; probabilities: Float32Array }[] = [];
for (const entry of manifest.photos) {
  const decoded = await decodePhoto(await bytesOf(entry), {
    maxPixels: env.PHOTO_MAX_PIXELS,
    minSide: env.PHOTO_MIN_SIDE,
  });
  if (!decoded.ok) throw new Error(`${entry.file ?? entry.generated}: ${decoded.error}`);
  scored.push({
    name: entry.file ?? `(generated ${entry.generated})`,
    expected: entry.expected,
    probabilities: await model.classify(decoded.photo.modelRgb),
  });
}

function evaluate(threshold: number) {
  const verdicts = scored.map((s) => ({ ...s, ...roomTags(s.probabilities, threshold) }));
  const tags = [...new Set(verdicts.flatMap((v) => [v.expected, v.image_of]))]
    .filter((t) => t !== ABSTAIN)
    .sort();
  const perTag = tags.map((tag) => {
    const tp = verdicts.filter((v) => v.image_of === tag && v.expected === tag).length;
    const predicted = verdicts.filter((v) => v.image_of === tag).length;
    const actual = verdicts.filter((v) => v.expected === tag).length;
    return {
      tag,
      tp,
      predicted,
      actual,
      precision: predicted ? tp / predicted : NaN,
      recall: actual ? tp / actual : NaN,
    };
  });
  const abstained = verdicts.filter((v) => v.image_of === ABSTAIN).length;
  const correct = verdicts.filter((v) => v.image_of === v.expected).length;
  const wrongLabels = verdicts.filter((v) => v.image_of !== ABSTAIN && v.image_of !== v.expected).length;
  return { verdicts, perTag, abstained, correct, wrongLabels };
}

const pct = (x: number) => (Number.isNaN(x) ? '   –' : `${(100 * x).toFixed(0).padStart(3)}%`);
const at = evaluate(env.PHOTO_TAG_THRESHOLD);
console.log(`photo model: ${modelPath}`);
console.log(`threshold ${env.PHOTO_TAG_THRESHOLD} (PHOTO_TAG_THRESHOLD), ${scored.length} photos\n`);
for (const v of at.verdicts) {
  const mark = v.image_of === v.expected ? 'ok ' : v.image_of === ABSTAIN ? 'abs' : 'BAD';
  const tags = v.tags.map((t) => `${t.tag} ${t.confidence.toFixed(2)}`).join(', ') || '-';
  console.log(
    `${mark} ${v.name.padEnd(22)} expected ${v.expected.padEnd(17)} got ${v.image_of.padEnd(17)} ${tags}`,
  );
}
console.log('\ntag               precision  recall  (tp/predicted, tp/actual)');
for (const t of at.perTag)
  console.log(
    `${t.tag.padEnd(17)} ${pct(t.precision)}       ${pct(t.recall)}   (${t.tp}/${t.predicted}, ${t.tp}/${t.actual})`,
  );
console.log(
  `\nabstain rate ${pct(at.abstained / scored.length)} (${at.abstained}/${scored.length} photos Other); ` +
    `correct ${at.correct}/${scored.length}; wrong labels ${at.wrongLabels}`,
);
console.log('\nthreshold  abstain  correct  wrong labels');
for (const threshold of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]) {
  const r = evaluate(threshold);
  console.log(
    `${threshold.toFixed(1).padStart(9)}  ${pct(r.abstained / scored.length)}     ${String(r.correct).padStart(2)}/${scored.length}    ${r.wrongLabels}`,
  );
}
await model.release();
