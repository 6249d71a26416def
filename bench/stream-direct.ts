// bench:stream's first phase: the stream alone. Publishes listing messages straight to the topic
// (as the API would), then times how long the worker needs to store them: the stream's own capacity.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKafka, createProducer } from '../common/clients/kafka.ts';
import { queryRows } from '../common/clients/clickhouse.ts';
import type { Listing } from '../common/domain/listing.ts';
import { encodeListingBatch, listingMessageHeaders } from '../common/domain/messages.ts';
import { createLogger } from '../common/logger.ts';
import { topicName } from '../common/topics.ts';
import { nextListingsBody } from './listing-bodies.ts';
import { cpuSnapshot, printCpuTable } from './process-stats.ts';
import { listingInserts, printInserts } from './stream-metrics.ts';
import type { Ours } from './stream-ours.ts';
import { benchEnv, LOAD_GENERATOR } from './support.ts';

/** Publishes `direct` listings (one v2 message per 100, 50 messages per send) and waits until all are stored. */
export async function streamAlone(ours: Ours, direct: number, metricsUrl: string | undefined) {
  const env = benchEnv;
  const producer = await createProducer(
    createKafka(env.KAFKA_BROKERS, 'bench-stream', createLogger('error')),
  );
  const topic = topicName(env.KAFKA_TOPIC_PREFIX, 'rls.listings.v1');
  const directAccount = `${ours.account}-direct`;
  const template = JSON.parse(nextListingsBody('Stream bench', { withAddress: true })) as {
    listings: Record<string, unknown>[];
  };
  const before = Date.now();
  // The worker consumes while this process produces, so CPU is counted from the first send.
  const directCpuBefore = cpuSnapshot(ours.processes);
  const directInsertsBefore = await listingInserts(metricsUrl);
  for (let i = 0; i < direct; i += 5_000) {
    const messages = [];
    for (let j = i; j < Math.min(i + 5_000, direct); j += 100) {
      const head = {
        account_id: directAccount,
        batch_id: randomUUID(),
        is_test: false,
        received_at: new Date().toISOString(),
      };
      const items = template.listings
        .slice(0, Math.min(100, direct - j))
        .map((listing) => ({ listing_id: randomUUID(), listing: listing as Listing }));
      const headers = listingMessageHeaders(items);
      for (const value of encodeListingBatch(head, items))
        messages.push({ key: head.batch_id, value, headers });
    }
    await producer.send({ topic, messages });
  }
  const producedSeconds = (Date.now() - before) / 1000;
  const countDirect = async () =>
    Number(
      (
        await queryRows<{ c: string }>(
          ours.clickhouse,
          'SELECT count() AS c FROM listings WHERE account_id = {account:String}',
          { account: directAccount },
        )
      )[0]?.c ?? 0,
    );
  while ((await countDirect()) < direct) {
    if (Date.now() - before > 300_000) throw new Error('direct messages not stored within 300 s');
    await sleep(100);
  }
  const total = (Date.now() - before) / 1000;
  console.log(
    `stream alone: ${direct} messages produced in ${producedSeconds.toFixed(1)} s, all stored after ${total.toFixed(1)} s → ${(direct / total).toFixed(0)} listings/s`,
  );
  printCpuTable(ours.processes, directCpuBefore, cpuSnapshot(ours.processes), {
    listings: direct,
    seconds: total,
    notCounted: [LOAD_GENERATOR, 'gateway (API)'],
  });
  printInserts(directInsertsBefore, await listingInserts(metricsUrl), total);
  await producer.disconnect();
}
