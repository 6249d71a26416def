// The image checker (run by the image process, main.ts): its own consumer group on rls.listings.v1 checks every image
// URL of every listing through the SSRF-safe client, counts results per batch in Redis, and stores
// one row per image in ClickHouse `image_checks` with the listing message's Kafka provenance (so a
// replayed range is skipped). Runs beside the listings sink; it never delays storing listings.
// Each checked image is then analysed (photos.ts: decode, hash, tags, reuse) into `listing_images`.
import { mayHaveImages, type ListingMessage } from '../../common/domain/messages.ts';
import type { Logger } from '../../common/logger.ts';
import type { OutboundEnv, SharedEnv } from '../../common/env.ts';
import { createOutboundClient, outboundPolicy } from '../../common/outbound/index.ts';
import { imageChecksStore } from '../../common/photos/batch-image-checks.ts';
import type { Platform } from '../../common/platform.ts';
import { imageChecksTable, type ImageCheckRow } from '../../common/warehouse/image-checks.ts';
import { listingImagesTable, type ListingImageRow } from '../../common/warehouse/listing-images.ts';
import type { Provenance } from '../../common/warehouse/table.ts';
import { decodeListings } from '../listings/decode.ts';
import { startOffsetConsumer, type BatchContext, type BatchHandler } from '../offset-consumer.ts';
import { createClickHouseWriter } from '../sink/clickhouse-writer.ts';
import { checkImage } from './check.ts';
import type { ImageCheckerEnv } from './env.ts';
import { imageKeyOf } from './image-key.ts';
import type { PhotoEnv } from './photo-env.ts';
import { createImagePools } from './pools.ts';
import { createPhotoAnalyser } from './photos.ts';
import { imageResolver } from './resolver.ts';

/** Listings with images: the others skip validation (the full schema was ~6 % of a worker's CPU). */
function hasImages(rawListing: unknown): boolean {
  const images = (rawListing as { images?: unknown } | null)?.images;
  return Array.isArray(images) && images.length > 0;
}

/** The image processes' consumer group on the listings topic. */
export const imageCheckerGroupId = (env: { STREAM_GROUP_PREFIX: string; KAFKA_TOPIC_PREFIX: string }) =>
  `${env.STREAM_GROUP_PREFIX}${env.KAFKA_TOPIC_PREFIX}.image-checker`;

/** How often the image process commits a partition (offset-consumer.ts, commit-pacer.ts). */
const IMAGE_COMMIT_INTERVAL_MS = 1_000;
/**
 * Its fetches wait for 1 MiB or 250 ms, whichever comes first: a fetch per message or two would
 * cost Kafka and this process more than the messages, and a photo check may start 250 ms later.
 */
const IMAGE_FETCH_MIN_BYTES = 1024 * 1024;
const IMAGE_FETCH_WAIT_MS = 250;

type CheckerEnv = ImageCheckerEnv &
  OutboundEnv &
  Pick<SharedEnv, 'KAFKA_TOPIC_PREFIX' | 'STREAM_GROUP_PREFIX' | 'REDIS_KEY_PREFIX'>;

export async function startImageChecker(
  platform: Platform,
  env: CheckerEnv,
  photoEnv: PhotoEnv,
  logger: Logger,
  fetchLimits: { maxBytesPerPartition?: number } = {},
) {
  const parts = await checkerParts(platform, env, photoEnv, logger);
  const { pools, photos, writer, photoWriter } = parts;
  const consumer = await startOffsetConsumer({
    kafka: platform.kafka,
    clickhouse: platform.clickhouse,
    groupId: imageCheckerGroupId(env),
    topic: platform.topic('rls.listings.v1'),
    provenanceTables: [imageChecksTable],
    maxBytesPerPartition: fetchLimits.maxBytesPerPartition,
    // Most of its batches are listings without images, skipped unread: committing each cost Kafka
    // more than reading them. What it stores, the replay guard recognises after a crash.
    commitIntervalMs: IMAGE_COMMIT_INTERVAL_MS,
    fetchMinBytes: IMAGE_FETCH_MIN_BYTES,
    fetchWaitMs: IMAGE_FETCH_WAIT_MS,
    handler: imageCheckHandler(parts, env),
    writers: [writer, photoWriter],
    logger: logger.child({ consumer: 'image-checker' }),
  });
  return {
    ...consumer,
    /**
     * Checks still waiting for a slot are dropped at once, so the running batch fails fast and is
     * not committed (the next owner of the partition checks it again) instead of holding shutdown
     * for as long as a large single-host queue takes.
     */
    async stop() {
      pools.abort(new Error('image checker stopping'));
      photos.abort(new Error('image checker stopping'));
      await consumer.stop();
      await photos.close();
    },
  };
}

/** The checker's pools, SSRF-safe client, batch summary, photo analyser and its two writers. */
async function checkerParts(platform: Platform, env: CheckerEnv, photoEnv: PhotoEnv, logger: Logger) {
  // Fair shares per account, and a limit per resolved address (pools.ts).
  const pools = createImagePools(env);
  const outbound = createOutboundClient({
    policy: outboundPolicy(env),
    resolver: imageResolver,
    userAgent: 'RentalListingsService/1 (+image-check)',
    logger: logger.child({ component: 'image-checker' }),
    connectSlot: pools.perAddress,
  });
  const summary = imageChecksStore(platform.redis, env.REDIS_KEY_PREFIX);
  const writer = createClickHouseWriter(platform.clickhouse, {
    table: imageChecksTable,
    maxRows: 5_000,
    maxDelayMs: 500,
    logger,
  });
  const photos = await createPhotoAnalyser(
    { clickhouse: platform.clickhouse, redis: platform.redis, prefix: env.REDIS_KEY_PREFIX, outbound },
    photoEnv,
    logger,
  );
  const photoWriter = createClickHouseWriter(platform.clickhouse, {
    table: listingImagesTable,
    maxRows: 5_000,
    maxDelayMs: 500,
    logger,
  });
  return { pools, outbound, summary, writer, photos, photoWriter };
}

type CheckerParts = Awaited<ReturnType<typeof checkerParts>>;

type CheckedImage = { check: ImageCheckRow; photo: ListingImageRow };

function imageCheckHandler(parts: CheckerParts, env: CheckerEnv): BatchHandler {
  return {
    async handle(messages, context) {
      const checks: Promise<CheckedImage[]>[] = [];
      for (const message of messages) {
        if (!mayHaveImages(message)) continue;
        for (const decoded of decodeListings(message, hasImages)) {
          // Bad listings are the listings sink's to quarantine; stored ones were checked before.
          if (!decoded.ok || context.isStored(message, decoded.item)) continue;
          checks.push(
            checkListing(parts, env, decoded.value, context.provenance(message, decoded.item), context),
          );
        }
      }
      const results = (await Promise.all(checks)).flat();
      // Photos first: the replay guard reads image_checks, so a crash between the two inserts
      // replays the listing and writes its photos again (collapsed by FINAL) instead of losing them.
      await parts.photoWriter.write(
        results.map((r) => r.photo),
        context.fence,
      );
      await parts.writer.write(
        results.map((r) => r.check),
        context.fence,
      );
    },
  };
}

async function checkListing(
  parts: CheckerParts,
  env: CheckerEnv,
  message: ListingMessage,
  provenance: Provenance,
  context: BatchContext,
): Promise<CheckedImage[]> {
  const images = message.listing.images ?? [];
  if (!images.length) return [];
  await context.retry('image summary', () =>
    parts.summary.started(message.account_id, message.batch_id, message.listing_id, images.length),
  );
  return Promise.all(
    images.map((url, index) => checkOneImage(parts, env, { message, provenance, context, url, index })),
  );
}

/** Checks one image URL, analyses the photo, counts it in the batch summary; returns its rows. */
async function checkOneImage(
  { pools, outbound, photos, summary }: CheckerParts,
  env: CheckerEnv,
  image: {
    message: ListingMessage;
    provenance: Provenance;
    context: BatchContext;
    url: string;
    index: number;
  },
): Promise<CheckedImage> {
  const { message, provenance, context, url, index } = image;
  const result = await pools.accounts.run(message.account_id, () =>
    checkImage(outbound, url, env.IMAGE_CHECK_TIMEOUT_MS),
  );
  const photo = await photos.analyse({
    message,
    index,
    url,
    checkOk: result.is_ok === 1,
    schedule: (task) => pools.accounts.run(message.account_id, task),
    timeoutMs: env.IMAGE_CHECK_TIMEOUT_MS,
    retry: context.retry,
  });
  // Redis before ClickHouse: a crash in between replays the message, and the counters are idempotent.
  await context.retry('image summary', () =>
    summary.checked(message.account_id, message.batch_id, message.listing_id, index, result.is_ok === 1),
  );
  const check: ImageCheckRow = {
    ...imageKeyOf(message, index, url),
    checked_at: new Date().toISOString(),
    ...result,
    ...provenance,
  };
  return { check, photo: { ...photo, ...provenance } };
}
