// Proof that KafkaJS 2.2.4 works against the broker of infra/local/kafka.mjs:
//   node infra/local/prove-kafkajs.mjs            (KAFKA_VERSION=4.1.1 to try another version)
// Uses its own state dir and ports (.local/kafka-proof, base 31000) and wipes that state first, so
// the start measured is a first start. RLS_CACHE_DIR=<empty dir> measures a start with download.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { ensureKafkaJars, startKafka, stopKafka } from './kafka.mjs';
import { readPid, isAlive } from './processes.mjs';
import { pidFile, readSettings } from './settings.mjs';

const { Kafka, logLevel, CompressionTypes, Partitioners } = kafkajs;
process.env.RLS_STATE_DIR ||= '.local/kafka-proof';
process.env.RLS_PORT_BASE ||= '31000';
const settings = readSettings(process.env, { profile: 'test' });

const results = [];
const metrics = [];
async function step(name, fn) {
  const t0 = Date.now();
  try {
    const detail = await fn();
    results.push({ name, ok: true, detail: detail ?? '', ms: Date.now() - t0 });
  } catch (error) {
    results.push({ name, ok: false, detail: error.stack || String(error), ms: Date.now() - t0 });
  }
  const r = results.at(-1);
  console.log(`${r.ok ? 'PASS' : 'FAIL'} ${name} (${r.ms} ms)${r.detail ? ` - ${r.detail}` : ''}`);
  return r.ok;
}
const assert = (cond, message) => {
  if (!cond) throw new Error(message);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(what, cond, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
const rssMb = (pid) => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
  return Math.round(kb / 1024);
};

const kafkaPid = () => readPid(pidFile(settings, 'kafka', 1));
const consumers = [];
let admin;

async function main() {
  console.log(
    `Kafka ${settings.kafka.version} on 127.0.0.1:${settings.kafka.port}, state ${settings.stateDir}`,
  );
  // A fresh broker: stop a leftover one of this proof and wipe its state.
  await stopKafka(settings);
  fs.rmSync(path.join(settings.stateDir, 'kafka'), { recursive: true, force: true });
  fs.rmSync(path.join(settings.logDir, 'kafka.log'), { force: true });

  let downloadMs = 0;
  let started;
  const ok = await step('jars + first start', async () => {
    downloadMs = await ensureKafkaJars(settings);
    const t0 = Date.now();
    started = await startKafka(settings);
    const startMs = Date.now() - t0;
    assert(started.startedPid > 0, 'startKafka did not start a broker');
    metrics.push(`download: ${downloadMs ? `${(downloadMs / 1000).toFixed(1)} s` : 'cached (0 s)'}`);
    metrics.push(
      `first start (format + start until describeCluster answers), download excluded: ${(startMs / 1000).toFixed(1)} s`,
    );
    metrics.push(`first start, download included: ${((startMs + downloadMs) / 1000).toFixed(1)} s`);
    metrics.push(`RSS right after ready: ${rssMb(started.startedPid)} MB`);
    return `pid ${started.startedPid}, ${started.brokers}`;
  });
  if (!ok) return;

  await step('reuse: second startKafka returns startedPid 0', async () => {
    const again = await startKafka(settings);
    assert(again.startedPid === 0 && again.brokers === started.brokers, JSON.stringify(again));
  });

  await step('port taken by something else fails clearly', async () => {
    const server = net.createServer().listen(settings.kafka.port + 100, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const other = {
      ...settings,
      stateDir: path.join(settings.stateDir, 'other'),
      kafka: { ...settings.kafka, port: settings.kafka.port + 100 },
    };
    try {
      await startKafka(other);
      throw new Error('startKafka did not fail');
    } catch (error) {
      assert(/already in use/.test(error.message), error.message);
      return error.message.split('(')[0].trim();
    } finally {
      server.close();
      fs.rmSync(other.stateDir, { recursive: true, force: true });
    }
  });

  const kafka = new Kafka({
    clientId: 'prove-kafkajs',
    brokers: [started.brokers],
    logLevel: logLevel.NOTHING,
  });
  admin = kafka.admin();
  await admin.connect();
  const topic = `proof-${Date.now()}`;
  const groupId = `${topic}-group`;

  await step('admin.createTopics (3 partitions)', async () => {
    const created = await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    assert(created, 'createTopics returned false');
    const meta = await admin.fetchTopicMetadata({ topics: [topic] });
    assert(meta.topics[0].partitions.length === 3, `partitions: ${meta.topics[0].partitions.length}`);
  });

  const sent = new Map(); // key -> value
  const options = { createPartitioner: Partitioners.DefaultPartitioner, allowAutoTopicCreation: false };
  const producer = kafka.producer(options);
  // The services' producer is idempotent (InitProducerId + sequence numbers): prove that too.
  const idempotent = kafka.producer({ ...options, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  await idempotent.connect();
  const produce = async (from, to, compression, via = producer) => {
    const messages = [];
    for (let i = from; i < to; i++) {
      const key = `key-${i}`;
      const value = JSON.stringify({ i, pad: 'x'.repeat(200) }); // compressible
      sent.set(key, value);
      messages.push({ key, value });
    }
    await via.send({ topic, messages, compression, acks: -1 });
  };

  await step('produce 100 keyed messages (50 plain, 25 GZIP, 25 GZIP idempotent)', async () => {
    await produce(0, 50, CompressionTypes.None);
    await produce(50, 75, CompressionTypes.GZIP);
    await produce(75, 100, CompressionTypes.GZIP, idempotent);
    const offsets = await admin.fetchTopicOffsets(topic);
    const total = offsets.reduce((sum, o) => sum + Number(o.high), 0);
    assert(total === 100, `high watermarks sum to ${total}`);
    return `per partition: ${offsets.map((o) => o.high).join('/')}`;
  });

  // Consumers commit manually from eachBatch; assignments are read from GROUP_JOIN events.
  const received = []; // {consumer, key, value, partition, offset}
  const assignment = {};
  const makeConsumer = async (name) => {
    const consumer = kafka.consumer({
      groupId,
      heartbeatInterval: 500,
      sessionTimeout: 10_000,
      rebalanceTimeout: 10_000,
    });
    consumer.on(consumer.events.GROUP_JOIN, (e) => {
      assignment[name] = e.payload.memberAssignment[topic] ?? [];
    });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (const m of batch.messages) {
          if (!isRunning() || isStale()) break;
          received.push({
            consumer: name,
            key: m.key?.toString(),
            value: m.value?.toString(),
            partition: batch.partition,
            offset: m.offset,
          });
          resolveOffset(m.offset);
        }
        if (batch.messages.length) {
          const next = String(Number(batch.messages.at(-1).offset) + 1);
          await consumer.commitOffsets([{ topic, partition: batch.partition, offset: next }]);
        }
        await heartbeat();
      },
    });
    consumers.push(consumer);
    return consumer;
  };

  await step('consume 100 in a group (eachBatch, manual commitOffsets)', async () => {
    await makeConsumer('A');
    await waitFor('100 messages', () => received.length >= 100);
    await sleep(500); // duplicates would show up here
    assert(received.length === 100, `received ${received.length}`);
    for (const m of received) assert(sent.get(m.key) === m.value, `key ${m.key} has a wrong value`);
    assert(new Set(received.map((m) => m.key)).size === 100, 'duplicate keys');
    return `assignment A=${JSON.stringify(assignment.A)}`;
  });

  await step('admin.fetchOffsets shows committed offsets = high watermarks', async () => {
    const high = Object.fromEntries((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o.high]));
    let committed;
    await waitFor(
      'commits',
      async () => {
        [{ partitions: committed }] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return committed.every((c) => c.offset === high[c.partition]);
      },
      10_000,
    );
    return committed.map((c) => `p${c.partition}=${c.offset}`).join(' ');
  });

  await step('second member joins: rebalance splits partitions', async () => {
    await makeConsumer('B');
    await waitFor(
      'a split assignment',
      () => {
        const a = assignment.A ?? [];
        const b = assignment.B ?? [];
        const all = [...a, ...b].sort();
        return a.length > 0 && b.length > 0 && all.length === 3 && new Set(all).size === 3;
      },
      30_000,
    );
    const group = await admin.describeGroups([groupId]);
    const members = group.groups[0].members.length;
    assert(members === 2, `describeGroups shows ${members} members`);
    return `A=${JSON.stringify(assignment.A)} B=${JSON.stringify(assignment.B)} state=${group.groups[0].state}`;
  });

  await step('after rebalance: 30 new messages, each once, no redelivery', async () => {
    const before = received.length;
    await produce(100, 130, CompressionTypes.GZIP);
    await waitFor('30 more messages', () => received.length >= before + 30);
    await sleep(1000);
    const after = received.slice(before);
    assert(after.length === 30, `received ${after.length} after rebalance (redelivery?)`);
    const by = (c) => after.filter((m) => m.consumer === c).length;
    assert(by('A') > 0 && by('B') > 0, `A got ${by('A')}, B got ${by('B')}`);
    return `A got ${by('A')}, B got ${by('B')}`;
  });

  await step('member leaves: remaining member gets all partitions', async () => {
    await consumers.pop().disconnect();
    await waitFor('A owning 3 partitions', () => (assignment.A ?? []).length === 3, 30_000);
  });

  await producer.disconnect();
  await idempotent.disconnect();
  for (const c of consumers.splice(0)) await c.disconnect();
  await step('admin.listTopics + deleteTopics', async () => {
    assert((await admin.listTopics()).includes(topic), 'topic not listed');
    await admin.deleteTopics({ topics: [topic] });
    await waitFor('topic gone', async () => !(await admin.listTopics()).includes(topic), 10_000);
  });
  await admin.disconnect();
  admin = undefined;

  await sleep(5000);
  metrics.push(`RSS idle after workload (+5 s): ${rssMb(started.startedPid)} MB`);

  await step('stopKafka stops the broker cleanly', async () => {
    const pid = kafkaPid();
    const t0 = Date.now();
    await stopKafka(settings);
    assert(!isAlive(pid), 'broker still alive');
    // Kafka writes this marker only after a clean shutdown (else the next start recovers logs).
    assert(
      fs.existsSync(path.join(settings.stateDir, 'kafka', 'data', '.kafka_cleanshutdown')),
      'no .kafka_cleanshutdown marker',
    );
    metrics.push(`stop: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });

  await step('restart on formatted storage', async () => {
    const t0 = Date.now();
    const again = await startKafka(settings);
    metrics.push(`restart (formatted storage): ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    assert(again.startedPid > 0, 'not started');
    await stopKafka(settings);
  });
}

try {
  await main();
} catch (error) {
  results.push({ name: 'unexpected error', ok: false, detail: error.stack });
  console.log(error.stack);
} finally {
  for (const c of consumers) await c.disconnect().catch(() => undefined);
  await admin?.disconnect().catch(() => undefined);
  await stopKafka(settings).catch(() => undefined);
}
console.log(`\n=== KafkaJS 2.2.4 vs Kafka ${settings.kafka.version}`);
for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}`);
for (const m of metrics) console.log(`  ${m}`);
const failed = results.filter((r) => !r.ok).length;
console.log(failed ? `${failed} step(s) FAILED` : 'ALL PASS');
process.exit(failed ? 1 : 0);
