// The environment of the photo evaluation and the head's training (npm run eval:photos, npm run
// train:photo-head; docs/photos.md, "Tags: what each photo shows"): the image process's
// photo settings, with which the photos are decoded as in production, and the EVAL_* knobs. Parsed
// once when a script starts; a wrong value stops it with the variable named.
import { z } from 'zod';
import { parseEnv } from '../common/env.ts';
import { photoEnvSchema } from '../stream/images/photo-env.ts';

/** `1` turns a switch on; unset or `0` leaves it off. */
const flag = z
  .enum(['0', '1'])
  .default('0')
  .transform((value) => value === '1');

export const evalEnvSchema = photoEnvSchema.extend({
  /** A checkout of the Houses dataset: its photos join the evaluated sets (eval/samples.ts). */
  EVAL_HOUSES_DIR: z.string().optional(),
  /** Houses 1..n of that dataset only (default: all). */
  EVAL_HOUSES_LIMIT: z.coerce.number().int().positive().optional(),
  /** The Rooms dataset's training split (eval/rooms-train.ts): photos the head trains on, never evaluated. */
  EVAL_ROOMS_TRAIN_DIR: z.string().optional(),
  /** Only the photos already in the cache file: a preview while another run is still classifying. */
  EVAL_CACHED_ONLY: flag,
  /** eval:photos reports the head at this threshold instead of the one it was trained with. */
  EVAL_THRESHOLD: z.coerce.number().min(0).max(1).optional(),
  /** eval:photos lists the held-out photos the head got wrong. */
  EVAL_VERBOSE: flag,
});
export type EvalEnv = z.infer<typeof evalEnvSchema>;

export const evalEnv: EvalEnv = parseEnv(evalEnvSchema);
