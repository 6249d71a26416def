// The peer's API: what a competent first version builds from the same packages without our
// guarantees. Express + zod validate a request of listings (all or nothing), kafkajs publishes it as
// one message with acks from all in-sync replicas, and the 201 follows the acknowledgement. No keys,
// quotas, duplicate detection or idempotency. Started by bench:stream (bench/peer/run.ts).
import express from 'express';
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
// Only the filter of kafkajs' negative-timeout warnings: the peer runs kafkajs as published.
import '../../common/clients/kafkajs-timers.ts';
import { z } from 'zod';
import { listingSchema } from '../../common/domain/listing.ts';
import { peerEnv } from './env.ts';
import type { PeerMessage } from './table.ts';

const bodySchema = z.object({ listings: z.array(listingSchema).min(1).max(1000) });

const kafka = new Kafka({
  clientId: 'bench-peer-api',
  brokers: peerEnv.KAFKA_BROKERS,
  logLevel: logLevel.ERROR,
});
const producer = kafka.producer({ allowAutoTopicCreation: false });
await producer.connect();

const app = express();
app.use(express.json({ limit: '2mb' }));
app.post('/listings', async (req, res) => {
  const parsed = bodySchema.safeParse(req.body);
  if (!parsed.success) {
    res.status(400).json({ error: 'invalid listings', issues: parsed.error.issues.slice(0, 10) });
    return;
  }
  const message: PeerMessage = {
    request_id: randomUUID(),
    received_at: new Date().toISOString(),
    listings: parsed.data.listings,
  };
  try {
    await producer.send({
      topic: peerEnv.PEER_TOPIC,
      acks: -1,
      messages: [{ key: message.request_id, value: JSON.stringify(message) }],
    });
  } catch {
    res.status(503).json({ error: 'could not publish' });
    return;
  }
  res.status(201).json({ request_id: message.request_id, accepted: message.listings.length });
});
app.listen(peerEnv.PEER_PORT, '127.0.0.1', () => process.send?.('ready'));

process.once('SIGTERM', () => {
  void producer.disconnect().finally(() => process.exit(0));
});
