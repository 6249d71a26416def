// Settings of the photo analysis that runs inside the image checker (docs/webhooks.md, "Photo
// tagging and reuse"). Parsed once when the checker starts.
import { z } from 'zod';
import { envFields } from '../../common/env.ts';
import { SCENE_HEAD } from './scene-head.ts';

const fraction = z.coerce.number().min(0).max(1);

export const photoEnvSchema = z.object({
  /**
   * The ONNX model `npm start` / `npm test` provision (infra/local/photo-model.mjs). Unset: photos
   * are still decoded, hashed and checked for reuse, but not tagged (a warning at start).
   */
  PHOTO_MODEL_PATH: z.string().optional(),
  /**
   * Photos decoded at once per image process, each in a child process of its own (decode-pool.ts);
   * the scene model runs beside them on one thread. Downloads are bounded by IMAGE_CHECK_* instead.
   */
  PHOTO_TAG_CONCURRENCY: envFields.positiveInt.max(16).default(1),
  /**
   * A photo's decode is stopped (its child process killed) after this long: outcome
   * decode_timeout. An ordinary photo decodes in well under a second.
   */
  PHOTO_DECODE_TIMEOUT_MS: envFields.positiveInt.min(500).max(60_000).default(5_000),
  /** Larger bodies are not read past this size (outcome too_large). */
  PHOTO_MAX_BYTES: envFields.positiveInt.default(10 * 1024 * 1024),
  /** Larger images are not decoded (outcome too_many_pixels); width × height. */
  PHOTO_MAX_PIXELS: envFields.positiveInt.default(40_000_000),
  /** Images with a shorter side say nothing about a property (outcome too_small, e.g. 1×1 pixels). */
  PHOTO_MIN_SIDE: envFields.positiveInt.default(32),
  /**
   * Below this probability of its best value the head abstains: image_of is Other, tags is empty.
   * Default: the threshold `npm run train:photo-head` chose on the calibration half (scene-head.json).
   */
  PHOTO_TAG_THRESHOLD: fraction.default(SCENE_HEAD.threshold),
  /** Hashes (or mirrored hashes) at most this many bits apart are the same photo. */
  PHOTO_REUSE_MAX_DISTANCE: z.coerce.number().int().min(0).max(20).default(10),
});
export type PhotoEnv = z.infer<typeof photoEnvSchema>;
