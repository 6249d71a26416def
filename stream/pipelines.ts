// The stream's consumers: listings → `listings`, view events → `view_events`, status changes →
// `listing_status_changes` (docs/lifecycle.md), each a consumer group over its topic (scale out by
// running more workers, up to the partition count), sharing one quarantine writer and the
// dead-letter topic.
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { keeps } from '../common/bench-build.ts';
import { noteAccountsStored } from '../common/account-stored-at.ts';
import { batchStore } from '../common/batches.ts';
import type { Logger } from '../common/logger.ts';
import type { Platform } from '../common/platform.ts';
import type { TopicName } from '../common/topics.ts';
import { listingsTable } from '../common/warehouse/listings.ts';
import { quarantineTable } from '../common/warehouse/quarantine.ts';
import type { WarehouseTable } from '../common/warehouse/table.ts';
import { viewEventsTable } from '../common/warehouse/view-events.ts';
import { fxTable } from './enrich/fx.ts';
import type { StreamEnv } from './env.ts';
import { createListingsHandler } from './listings/handler.ts';
import { listingOwners, noOwners } from './listings/owners.ts';
import { ensureOwnersBuilt } from './listings/owners-rebuild.ts';
import { createStatusHandler } from './lifecycle/handler.ts';
import { resendMarks } from '../common/lifecycle/resend-marks.ts';
import { reportRepushed } from './lifecycle/repushed.ts';
import { readListingStates } from '../common/lifecycle/states.ts';
import { listingStatesTable, listingStatusChangesTable } from '../common/warehouse/lifecycle.ts';
import { inflightMarks } from './inflight-marks.ts';
import { startOffsetConsumer, type RunningConsumer } from './offset-consumer.ts';
import { createClickHouseWriter } from './sink/clickhouse-writer.ts';
import { createQuarantine } from './sink/quarantine.ts';
import { createViewsHandler } from './views/handler.ts';
import { createListingCache } from './views/listing-cache.ts';

export async function startPipelines(
  env: StreamEnv,
  platform: Platform,
  producer: Producer,
  logger: Logger,
): Promise<Record<'listings' | 'views' | 'status', RunningConsumer>> {
  const shared = sharedParts(env, platform, producer, logger);
  const listings = await startListings(shared);
  const views = await startViews(shared);
  const status = await startStatus(shared);
  return { listings, views, status };
}

/** A sink is named after what it stores: its consumer group, its log lines and the source of its
 * quarantined messages all carry that name. */
type Sink = 'listings' | 'views' | 'status';

/** What the three consumers share: the platform, writers made alike, one quarantine writer. */
function sharedParts(env: StreamEnv, platform: Platform, producer: Producer, logger: Logger) {
  const writerOptions = {
    maxRows: env.SINK_MAX_ROWS,
    maxDelayMs: env.SINK_MAX_DELAY_MS,
    quietMs: env.SINK_QUIET_MS,
    quietMinRows: env.SINK_QUIET_MIN_ROWS,
    logger,
  };
  const writer = <Row extends object>(table: WarehouseTable<Row>) =>
    createClickHouseWriter(platform.clickhouse, { ...writerOptions, table });
  const quarantineWriter = writer(quarantineTable);
  const deadLetters = platform.topic('rls.deadletter.v1');
  return {
    env,
    platform,
    producer,
    logger,
    writer,
    quarantineWriter,
    quarantine: (name: Sink) => createQuarantine(quarantineWriter, producer, deadLetters, name),
  };
}

type Shared = ReturnType<typeof sharedParts>;

/** The consumer options every sink has: its group, topic, logger and (listings, views) pipelining. */
function sinkOptions({ env, platform, logger }: Shared, name: Sink, topic: TopicName) {
  const groupId = `${env.STREAM_GROUP_PREFIX}${env.KAFKA_TOPIC_PREFIX}.${name}-sink`;
  return {
    kafka: platform.kafka,
    clickhouse: platform.clickhouse,
    partitionsConsumedConcurrently: env.STREAM_PARTITIONS_CONCURRENTLY,
    maxBytesPerPartition: env.STREAM_FETCH_MAX_BYTES_PER_PARTITION,
    groupId,
    topic: platform.topic(topic),
    logger: logger.child({ consumer: name }),
    // Not the status sink: its batch reads the listing states the partition's previous batch stores.
    ...(name !== 'status' && {
      pipeline: {
        depth: env.STREAM_PIPELINE_DEPTH,
        marks: inflightMarks(platform.redis, env.REDIS_KEY_PREFIX, groupId, platform.topic(topic)),
      },
    }),
  };
}

async function startListings(shared: Shared): Promise<RunningConsumer> {
  const { env, platform, producer, logger } = shared;
  const listingsWriter = shared.writer(listingsTable);
  const batches = batchStore(platform.redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
  const owners = await startOwners(env, platform, logger);
  return startOffsetConsumer({
    ...sinkOptions(shared, 'listings', 'rls.listings.v1'),
    provenanceTables: [listingsTable, quarantineTable],
    handler: createListingsHandler({
      owners,
      writer: listingsWriter,
      quarantine: shared.quarantine('listings'),
      fx: fxTable(env.FX_USD_TZS),
      markStored: (accountId, batchId, ids) => batches.markStored(accountId, batchId, ids),
      reportRepushed: (repushed) =>
        reportRepushed(producer, platform.topic('rls.listing-status.v1'), repushed, logger),
    }),
    // The quarantine writer is drained by the last consumer to stop (views).
    writers: [listingsWriter],
    crashAfterInsert: env.STREAM_CRASH_AFTER_INSERT === '1',
    members: env.STREAM_LISTINGS_MEMBERS,
  });
}

async function startViews(shared: Shared): Promise<RunningConsumer> {
  const { env, platform } = shared;
  const viewsWriter = shared.writer(viewEventsTable);
  return startOffsetConsumer({
    ...sinkOptions(shared, 'views', 'rls.views.v1'),
    provenanceTables: [viewEventsTable, quarantineTable],
    handler: createViewsHandler({
      writer: viewsWriter,
      quarantine: shared.quarantine('views'),
      listings: createListingCache(platform.clickhouse, env.STREAM_LISTING_CACHE_SIZE),
    }),
    writers: [viewsWriter, shared.quarantineWriter],
  });
}

/** Status changes: small volumes, one writer per table; keyed by account, so each account's
 * changes are applied in order (stream/lifecycle/handler.ts). */
async function startStatus(shared: Shared): Promise<RunningConsumer> {
  const { env, platform, logger } = shared;
  const changesWriter = shared.writer(listingStatusChangesTable);
  const statesWriter = shared.writer(listingStatesTable);
  return startOffsetConsumer({
    ...sinkOptions(shared, 'status', 'rls.listing-status.v1'),
    provenanceTables: [listingStatusChangesTable, quarantineTable],
    handler: createStatusHandler({
      readStates: (ids) => readListingStates(platform.clickhouse, ids),
      changes: changesWriter,
      states: statesWriter,
      quarantine: shared.quarantine('status'),
      fx: fxTable(env.FX_USD_TZS),
      logger,
      // A listing that left the market is news again when re-sent today (common/lifecycle/resend-marks.ts).
      onLeft: (account, ids) => resendMarks(platform.redis, env.REDIS_KEY_PREFIX).forget(account, ids),
      // Their next analytics answers include these changes (common/account-stored-at.ts).
      noteStored: (accounts) => noteAccountsStored(platform.redis, env.REDIS_KEY_PREFIX, accounts),
    }),
    writers: [changesWriter, statesWriter],
  });
}

/** The listing owners, built from ClickHouse if they are not yet; none in a benchmark build without them. */
async function startOwners(env: StreamEnv, platform: Platform, logger: Logger) {
  if (!keeps(env, 'owners')) return noOwners(); // common/bench-build.ts
  const owners = listingOwners(platform.redis, env.REDIS_KEY_PREFIX);
  await ensureOwnersBuilt({
    redis: platform.redis,
    clickhouse: platform.clickhouse,
    owners,
    prefix: env.REDIS_KEY_PREFIX,
    lockOwner: randomUUID(),
    logger,
  });
  return owners;
}
