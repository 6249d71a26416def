// Photo analysis of one listing image, run by the image checker after its check: fetch
// the bytes (within PHOTO_MAX_BYTES, through the host limiter the caller passes), decode within the
// pixel limits, hash, tag with the photo model, look for the same photo on another account, and
// count the result per batch. Every image gets a row; a failure is that row's outcome and error,
// never an error of the listing.
import type { Redis } from 'ioredis';
import type { ClickHouseClient } from '@clickhouse/client';
import type { ListingMessage } from '../../common/domain/messages.ts';
import type { Logger } from '../../common/logger.ts';
import type { OutboundClient } from '../../common/outbound/index.ts';
import { countPhoto } from '../../common/photos/batch-summary.ts';
import type { ListingImageRow } from '../../common/warehouse/listing-images.ts';
import type { Provenance } from '../../common/warehouse/table.ts';
import { DARK_BELOW } from './decode.ts';
import { createDecodePool } from './decode-pool.ts';
import { fetchPhoto } from './fetch-photo.ts';
import { imageKeyOf } from './image-key.ts';
import { createLimiter } from './limiter.ts';
import type { PhotoEnv } from './photo-env.ts';
import { phash } from './phash.ts';
import { reuseFinder } from './reuse.ts';
import { loadSceneModel } from './scene-model.ts';
import { tagPhoto, TAG_MODEL, type RoomTags } from './scene-tags.ts';

export type PhotoRow = Omit<ListingImageRow, keyof Provenance>;

/** Above this a photo is too bright (DARK_BELOW: too dark); below MIN_SHARPNESS it has no sharp edges. */
export const OVEREXPOSED_ABOVE = 0.92;
export const MIN_SHARPNESS = 100;
/** Grey standard deviation (0..255) under which a photo is blank: its hash says nothing, no reuse check. */
export const MIN_CONTRAST_FOR_REUSE = 8;

export interface AnalyseInput {
  message: ListingMessage;
  index: number;
  url: string;
  /** The image check found an image (2xx, image/*). */
  checkOk: boolean;
  /** Runs the download within the checker's per-host limits. */
  schedule: <T>(task: () => Promise<T>) => Promise<T>;
  timeoutMs: number;
  /** Retries Redis while the consumer runs (BatchContext.retry). */
  retry: <T>(what: string, fn: () => Promise<T>) => Promise<T>;
}

export interface PhotoAnalyserDeps {
  clickhouse: ClickHouseClient;
  redis: Redis;
  prefix: string;
  outbound: OutboundClient;
}

export async function createPhotoAnalyser(deps: PhotoAnalyserDeps, env: PhotoEnv, logger: Logger) {
  const model = env.PHOTO_MODEL_PATH ? await loadSceneModel(env.PHOTO_MODEL_PATH) : undefined;
  if (!model) logger.warn('PHOTO_MODEL_PATH is not set: photos are decoded and hashed but not tagged');
  // Decoding (in child processes killed at the deadline) and tagging, accounts taking turns.
  const cpu = createDecodePool({
    size: env.PHOTO_TAG_CONCURRENCY,
    timeoutMs: env.PHOTO_DECODE_TIMEOUT_MS,
    limits: { maxPixels: env.PHOTO_MAX_PIXELS, minSide: env.PHOTO_MIN_SIDE },
  });
  // Photos held in memory at once (downloading, waiting for the CPU, being analysed): downloads
  // finish faster than the CPU analyses, and a batch can hold thousands of images, so without this
  // their bodies (up to PHOTO_MAX_BYTES each) would pile up. At most half of them per account.
  const held = heldPhotos(env.PHOTO_TAG_CONCURRENCY);
  const buffers = createLimiter(held, Math.max(1, held / 2));
  const reuse = reuseFinder(deps.clickhouse, env.PHOTO_REUSE_MAX_DISTANCE);
  const analyser: Analyser = { deps, env, logger, model, cpu, buffers, reuse };

  return {
    analyse: (input: AnalyseInput): Promise<PhotoRow> => analyse(analyser, input),
    /** Photos not started yet are dropped at once (shutdown), like the checker's waiting checks. */
    abort(error: Error) {
      cpu.abort(error);
      buffers.abort(error);
    },
    async close() {
      await cpu.close();
      await model?.release();
    },
  };
}

/** What analysing a photo uses: the model, the decoders, the memory limiter, the reuse finder. */
interface Analyser {
  deps: PhotoAnalyserDeps;
  env: PhotoEnv;
  logger: Logger;
  model: Awaited<ReturnType<typeof loadSceneModel>> | undefined;
  cpu: ReturnType<typeof createDecodePool>;
  buffers: ReturnType<typeof createLimiter>;
  reuse: ReturnType<typeof reuseFinder>;
}

async function analyse(analyser: Analyser, input: AnalyseInput): Promise<PhotoRow> {
  const { deps } = analyser;
  const { message, index, url } = input;
  const row: PhotoRow = {
    ...emptyRow(),
    ...imageKeyOf(message, index, url),
    analysed_at: new Date().toISOString(),
  };
  await analyseInto(analyser, row, input);
  await input.retry('photo summary', () =>
    countPhoto(deps.redis, deps.prefix, message.account_id, message.batch_id, message.listing_id, index, {
      outcome: row.outcome,
      image_of: row.image_of,
      reused: row.reused_photo === 1,
    }),
  );
  return row;
}

async function analyseInto(analyser: Analyser, row: PhotoRow, input: AnalyseInput): Promise<void> {
  if (!input.checkOk) {
    Object.assign(row, { outcome: 'not_checked', error: 'the image check did not find an image' });
    return;
  }
  const analysed = await analyser.buffers.run(row.account_id, () => fetchAndAnalyse(analyser, row, input));
  if (!analysed) return;
  row.analyse_ms = Math.round(analysed.ms);
  if (!analysed.decoded.ok) {
    Object.assign(row, { outcome: analysed.decoded.outcome, error: analysed.decoded.error });
    return;
  }
  const { photo, hashes, tags } = analysed as Required<typeof analysed>;
  const dark = photo.brightness < DARK_BELOW;
  Object.assign(row, {
    outcome: 'decoded',
    error: analysed.tagError ?? '',
    format: photo.format,
    width: photo.width,
    height: photo.height,
    phash: hashes.phash.toString(),
    phash_mirrored: hashes.mirrored.toString(),
    brightness: round(photo.brightness, 3),
    is_dark: dark ? 1 : 0,
    is_overexposed: photo.brightness > OVEREXPOSED_ABOVE ? 1 : 0,
    sharpness: round(photo.sharpness, 1),
    // A dark photo has faint edges whatever the focus: it is dark, not blurred.
    is_blurry: !dark && photo.sharpness < MIN_SHARPNESS ? 1 : 0,
    tags: tags?.tags.map((t) => t.tag) ?? [],
    tag_confidences: tags?.tags.map((t) => t.confidence) ?? [],
    image_of: tags?.image_of ?? '',
    tag_model: tags ? TAG_MODEL : '',
  });
  if (photo.contrast < MIN_CONTRAST_FOR_REUSE) return;
  await markReuse(analyser, row, hashes, input);
}

/** Looks for the same photo on another account (and remembers this one for later lookups). */
async function markReuse(
  { reuse }: Analyser,
  row: PhotoRow,
  hashes: { phash: bigint; mirrored: bigint },
  input: AnalyseInput,
): Promise<void> {
  const identity = {
    listing_id: row.listing_id,
    image_index: row.image_index,
    account_id: row.account_id,
    is_test: row.is_test,
    phash: hashes.phash,
    mirrored: hashes.mirrored,
  };
  const match = await input.retry('photo reuse lookup', () => reuse.find(identity));
  reuse.remember(identity);
  if (match)
    Object.assign(row, {
      reused_photo: 1,
      reused_listing_id: match.listing_id,
      reused_account_id: match.account_id,
      reused_image_index: match.image_index,
      reused_distance: match.distance,
    });
}

/** Download and analysis of one photo; undefined when the download failed (row says why). */
async function fetchAndAnalyse(analyser: Analyser, row: PhotoRow, input: AnalyseInput) {
  const { deps, env, cpu, model, logger } = analyser;
  const fetched = await input.schedule(() =>
    fetchPhoto(deps.outbound, input.url, { maxBytes: env.PHOTO_MAX_BYTES, timeoutMs: input.timeoutMs }),
  );
  if (!fetched.ok) {
    Object.assign(row, { outcome: fetched.outcome, error: fetched.error });
    return undefined;
  }
  row.bytes = fetched.body.length;
  // The decoder's turn covers decoding only: the model runs after it, so the next photo decodes
  // (in its child process) while this one is classified, and photos classified meanwhile share
  // one batch (scene-model.ts).
  const { decoded, started } = await cpu.decode(row.account_id, fetched.body, (result, at) => ({
    decoded: result,
    started: at,
  }));
  if (!decoded.ok) return { decoded, ms: performance.now() - started };
  const { photo } = decoded;
  const hashes = { phash: phash(photo.hashGrey), mirrored: phash(photo.hashGrey, true) };
  let tagError = '';
  let tags: RoomTags | undefined;
  try {
    tags = await tagPhoto(photo, model, env.PHOTO_TAG_THRESHOLD);
  } catch (error) {
    tagError = `tagging failed: ${(error as Error).message}`.slice(0, 500);
    logger.warn('photo tagging failed', { url: input.url, error: tagError });
  }
  return { decoded, photo, hashes, tags, tagError, ms: performance.now() - started };
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function emptyRow(): Omit<
  PhotoRow,
  'listing_id' | 'image_index' | 'batch_id' | 'account_id' | 'is_test' | 'url' | 'analysed_at'
> {
  return {
    outcome: 'not_checked',
    error: '',
    bytes: 0,
    format: '',
    width: 0,
    height: 0,
    phash: '0',
    phash_mirrored: '0',
    brightness: 0,
    is_dark: 0,
    is_overexposed: 0,
    sharpness: 0,
    is_blurry: 0,
    tags: [],
    tag_confidences: [],
    image_of: '',
    tag_model: '',
    reused_photo: 0,
    reused_listing_id: null,
    reused_account_id: '',
    reused_image_index: 0,
    reused_distance: 0,
    analyse_ms: 0,
  };
}

/**
 * Photos a worker holds in memory at once: 8 per CPU slot, so a few slow image servers do not leave
 * the CPU idle, and at most 8 × PHOTO_MAX_BYTES (80 MiB) of bodies at the defaults.
 */
export function heldPhotos(tagConcurrency: number): number {
  return 8 * tagConcurrency;
}
