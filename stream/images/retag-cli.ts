// `npm run retag -- [--since YYYY-MM-DD]`: re-tags stored photos with the current tag model
// (retag.ts; docs/photos.md, "Re-tagging"). Prints one JSON line per page of progress and one
// with the totals; exit 2 for bad usage, 1 when the warehouse or the model cannot be reached.
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { baseEnvSchema, outboundEnvSchema, parseEnv } from '../../common/env.ts';
import { createOutboundClient, outboundPolicy } from '../../common/outbound/index.ts';
import { imageCheckerEnvSchema } from './env.ts';
import { createDecodePool } from './decode-pool.ts';
import { photoEnvSchema } from './photo-env.ts';
import { imageResolver } from './resolver.ts';
import { retagPhotos } from './retag.ts';
import { loadSceneModel } from './scene-model.ts';

const env = parseEnv(
  baseEnvSchema
    .extend(outboundEnvSchema.shape)
    .extend(photoEnvSchema.shape)
    .extend(imageCheckerEnvSchema.pick({ IMAGE_CHECK_TIMEOUT_MS: true }).shape)
    .extend({
      PHOTO_MODEL_PATH: z
        .string()
        .min(1, 'the tag model to re-tag with (npm run --silent photo-model prints it)'),
      /** Photos re-tagged per second at most (each is downloaded again from its image server). */
      RETAG_PER_SECOND: z.coerce.number().positive().max(100).default(5),
    }),
);
let since: Date | undefined;
try {
  const { values } = parseArgs({ options: { since: { type: 'string' } }, strict: true });
  if (values.since !== undefined) {
    since = new Date(values.since);
    if (!/^\d{4}-\d{2}-\d{2}/.test(values.since) || Number.isNaN(since.getTime()))
      throw new Error('--since must be a date, e.g. 2026-11-01');
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\nusage: retag [--since YYYY-MM-DD]\n`);
  process.exit(2);
}

const clickhouse = createClickHouse({
  url: env.CLICKHOUSE_URL,
  username: env.CLICKHOUSE_USER,
  password: env.CLICKHOUSE_PASSWORD,
  database: env.CLICKHOUSE_DATABASE,
});
const model = await loadSceneModel(env.PHOTO_MODEL_PATH);
const pool = createDecodePool({
  size: 1,
  timeoutMs: env.PHOTO_DECODE_TIMEOUT_MS,
  limits: { maxPixels: env.PHOTO_MAX_PIXELS, minSide: env.PHOTO_MIN_SIDE },
});
const outbound = createOutboundClient({
  policy: outboundPolicy(env),
  resolver: imageResolver,
  userAgent: 'RentalListingsService/1 (+image-check)',
});
try {
  const totals = await retagPhotos(
    { clickhouse, outbound, model, pool },
    {
      since,
      perSecond: env.RETAG_PER_SECOND,
      threshold: env.PHOTO_TAG_THRESHOLD,
      maxBytes: env.PHOTO_MAX_BYTES,
      timeoutMs: env.IMAGE_CHECK_TIMEOUT_MS,
      reuseMaxDistance: env.PHOTO_REUSE_MAX_DISTANCE,
      onPage: (counts) => process.stdout.write(`${JSON.stringify({ progress: counts })}\n`),
    },
  );
  process.stdout.write(`${JSON.stringify({ done: totals })}\n`);
} catch (error) {
  process.stderr.write(`retag failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await pool.close();
  await model.release();
  await clickhouse.close();
}
