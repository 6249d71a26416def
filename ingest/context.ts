// Composition root of the ingest API: builds its clients and stores once and hands them to the routes.
import { keyAuditFlusher, type KeyAuditFlusher } from '../common/auth/key-audit-flush.ts';
import { batchStore, type BatchStore } from '../common/batches.ts';
import { keeps } from '../common/bench-build.ts';
import { createProducer } from '../common/clients/kafka.ts';
import { outboundPolicy, type AddressPolicy } from '../common/outbound/index.ts';
import type { Platform } from '../common/platform.ts';
import type { IngestSettings } from './env.ts';
import { idempotencyStore, type IdempotencyStore } from './idempotency.ts';
import { coalescingPublisher, type Publisher } from './publisher.ts';
import { admissionStore, type AdmissionStore } from './listings/admission.ts';

export interface IngestContext {
  platform: Platform;
  /**
   * Kafka publishing for request paths (concurrent requests share produce requests). Listings go
   * through a non-idempotent producer with several sends in flight: their ids are deterministic and
   * the stream stores each id once, so a re-sent message is harmless. View events have no such
   * guard downstream, so theirs is idempotent.
   */
  listingPublisher: Publisher;
  viewPublisher: Publisher;
  /**
   * Status changes (rls.listing-status.v1) must keep their order per account even when a send is
   * retried, which the idempotent producer guarantees: the same publisher as the views.
   */
  statusPublisher: Publisher;
  batches: BatchStore;
  admission: AdmissionStore;
  idempotency: IdempotencyStore;
  /** Copies key audit events into ClickHouse after each key change (common/auth/key-audit.ts). */
  keyAudit: KeyAuditFlusher;
  /** Addresses webhook registration may call (OUTBOUND_ALLOW_CIDRS, minus the service's own ports). */
  outboundPolicy: AddressPolicy;
  close(): Promise<void>;
}

export async function createIngestContext(
  platform: Platform,
  settings: IngestSettings,
): Promise<IngestContext> {
  // Both guarantees are kept but in a benchmark build that measures their cost (common/bench-build.ts).
  const covered = keeps(settings, 'covered-sends');
  const dedupe = keeps(settings, 'dedupe');
  const listingProducer = await createProducer(platform.kafka, { idempotent: false, covered });
  const viewProducer = await createProducer(platform.kafka, { idempotent: true, covered });
  const idempotentPublisher = coalescingPublisher(viewProducer);
  const prefix = platform.env.REDIS_KEY_PREFIX;
  const keyAudit = keyAuditFlusher({
    redis: platform.redis,
    clickhouse: platform.clickhouse,
    prefix,
    parts: platform.env.REDIS_GLOBAL_PARTS,
    logger: platform.logger.child({ task: 'key-audit-flush' }),
  });
  return {
    platform,
    listingPublisher: coalescingPublisher(listingProducer, { maxInFlight: 4 }),
    viewPublisher: idempotentPublisher,
    statusPublisher: idempotentPublisher,
    batches: batchStore(platform.redis, prefix, platform.env.REDIS_GLOBAL_PARTS),
    admission: admissionStore(platform.redis, prefix, platform.env.REDIS_GLOBAL_PARTS, { dedupe }),
    idempotency: idempotencyStore(platform.redis, prefix),
    keyAudit,
    outboundPolicy: outboundPolicy(settings),
    async close() {
      await keyAudit.idle();
      await Promise.all([listingProducer.disconnect(), viewProducer.disconnect()]).catch(() => undefined);
    },
  };
}
