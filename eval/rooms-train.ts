// The training split of the same "Rooms" dataset eval/rooms/ was drawn from (its test and
// validation splits), for the head's training only: `EVAL_ROOMS_TRAIN_DIR=<checkout of
// kidademoraisaly/house_room_classifier at e9d8095>/data/train` (3,633 photos: 406 bathrooms, 854
// bedrooms, 806 dining rooms, 676 kitchens, 891 living rooms; CC BY 4.0, cited not shipped:
// docs/webhooks.md). These photos are never reported on. A photo of that split within
// NEAR_COPY_BITS of any eval/rooms photo (its perceptual hash or the mirrored one) is left out, so
// no copy of an evaluated photo is trained on under another name.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { HASH_SIDE } from '../stream/images/decode.ts';
import { hammingDistance, phash } from '../stream/images/phash.ts';
import type { Sample } from './samples.ts';

/** The dataset's folder names → ImageOf (as eval/rooms/SOURCES.md). */
const FOLDERS: Record<string, string> = {
  Bathroom: 'Bathroom',
  Bedroom: 'Bedroom',
  Dinning: 'DiningRoom',
  Kitchen: 'Kitchen',
  Livingroom: 'LivingRoom',
};
/** Re-encoding, resizing and mirroring move 0–4 bits, a 5 % crop up to 12 (docs/photos.md, "Reuse"). */
const NEAR_COPY_BITS = 12;

export function roomsTrainingSamples(dir: string): Sample[] {
  return Object.entries(FOLDERS).flatMap(([folder, expected]) =>
    fs
      .readdirSync(path.join(dir, folder))
      .filter((file) => /\.jpe?g$/i.test(file))
      .sort()
      .map((file) => ({
        set: 'rooms-train',
        name: `${folder}/${file}`,
        expected,
        trainingOnly: true,
        bytes: async () => fs.readFileSync(path.join(dir, folder, file)),
      })),
  );
}

async function hashes(sample: Sample): Promise<[bigint, bigint]> {
  const grey = await sharp(await sample.bytes())
    .autoOrient()
    .greyscale()
    .resize(HASH_SIDE, HASH_SIDE, { fit: 'fill' })
    .raw()
    .toBuffer();
  return [phash(grey), phash(grey, true)];
}

/** `training` without the photos within NEAR_COPY_BITS of one of `evaluated`. */
export async function withoutNearCopies(
  training: Sample[],
  evaluated: Sample[],
): Promise<{ kept: Sample[]; dropped: { name: string; of: string; bits: number }[] }> {
  const known = await Promise.all(evaluated.map(async (s) => ({ name: s.name, hash: (await hashes(s))[0] })));
  const kept: Sample[] = [];
  const dropped: { name: string; of: string; bits: number }[] = [];
  for (const sample of training) {
    const [plain, mirrored] = await hashes(sample);
    let nearest = { of: '', bits: 65 };
    for (const { name, hash } of known) {
      const bits = Math.min(hammingDistance(plain, hash), hammingDistance(mirrored, hash));
      if (bits < nearest.bits) nearest = { of: name, bits };
    }
    if (nearest.bits <= NEAR_COPY_BITS) dropped.push({ name: sample.name, ...nearest });
    else kept.push(sample);
  }
  return { kept, dropped };
}
