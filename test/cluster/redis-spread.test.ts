// The key space spread over the masters of the Redis Cluster (3 masters + 3 replicas): a mixed
// workload of 1,000 accounts through the real API — a key each, a webhook registered, listings
// posted in a batch with an Idempotency-Key (and the retry replayed), views, a status update, usage
// read, the batch completion delivered to the webhook — then, per master, its share of the keys
// the run added (DBSIZE) and of the memory (INFO memory, used_memory_dataset, minus the baseline
// taken before the run; used_memory printed too). No master may hold more than half of either,
// and no node may have answered CROSSSLOT (INFO errorstats), nor any request failed.
import type { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { api, batchCompleted, createTestKey, eventually, sampleListing, testRedis } from '../support/api.ts';
import { startReceiver, type Receiver } from '../support/webhooks-receiver.ts';
import { expectClusterStack, report, waitForRedisCluster } from '../support/cluster.ts';

const ACCOUNTS = 1_000;
const LISTINGS_PER_ACCOUNT = 10;
const CONCURRENCY = 12;

let receiver: Receiver | undefined;
afterAll(async () => receiver?.close());

interface NodeFigures {
  node: string;
  keys: number;
  dataset: number;
  used: number;
  crossSlot: number;
}

/** Keys, memory and CROSSSLOT errors of each master. */
async function masterFigures(redis: Redis): Promise<NodeFigures[]> {
  const masters = (redis as unknown as Cluster).nodes('master');
  return Promise.all(
    masters.map(async (node) => {
      const memory = await node.info('memory');
      const errors = await node.info('errorstats');
      const field = (text: string, name: string) =>
        Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(text)?.[1] ?? 0);
      return {
        node: `${node.options.host}:${node.options.port}`,
        keys: await node.dbsize(),
        dataset: field(memory, 'used_memory_dataset'),
        used: field(memory, 'used_memory'),
        crossSlot: Number(/^errorstat_CROSSSLOT:count=(\d+)/m.exec(errors)?.[1] ?? 0),
      };
    }),
  );
}

/** Runs `work` for 0 … count-1, `concurrency` at a time. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/** One account's traffic; returns the unexpected answers (method path status). */
async function account(receiverUrl: string, unexpected: string[]) {
  const expectStatus = (what: string, status: number, ok: number[], body?: unknown) => {
    if (!ok.includes(status)) unexpected.push(`${what} ${status} ${JSON.stringify(body).slice(0, 300)}`);
  };
  const { key } = await createTestKey({ tier: 'business' });
  const webhook = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiverUrl } });
  expectStatus('POST /webhooks/register', webhook.status, [201], webhook.body);

  const listings = Array.from({ length: LISTINGS_PER_ACCOUNT }, () => sampleListing());
  const headers = { 'Idempotency-Key': crypto.randomUUID() };
  const posted = await api('POST', '/api/v1/listings/bulk', { key, body: { listings }, headers });
  expectStatus('POST /listings/bulk', posted.status, [201], posted.body);
  const replay = await api('POST', '/api/v1/listings/bulk', { key, body: { listings }, headers });
  expectStatus('POST /listings/bulk (replay)', replay.status, [201], replay.body);
  if (posted.status !== 201 || replay.body?.batch_id !== posted.body.batch_id) {
    unexpected.push('the idempotent retry did not replay the first answer');
    return undefined;
  }
  const ids: string[] = posted.body.results.map((r: { listing_id: string }) => r.listing_id);
  const events = ids
    .slice(0, 3)
    .map((listing_id, i) => ({ listing_id, event_id: `e${i}`, viewer_id: `v${i}` }));
  const views = await api('POST', '/api/v1/events/views', { key, body: { events } });
  expectStatus('POST /events/views', views.status, [202], views.body);
  const usage = await api('GET', '/api/v1/listings/bulk', { key });
  expectStatus('GET /listings/bulk (usage)', usage.status, [200], usage.body);
  return { key, batchId: posted.body.batch_id as string, listingId: ids[0]! };
}

describe('Redis Cluster: the key space spread over the masters', () => {
  it('happy: 1,000 accounts of mixed traffic leave no master with more than half the keys or memory, and no CROSSSLOT', async () => {
    expectClusterStack();
    await waitForRedisCluster();
    const redis = await testRedis();
    receiver = await startReceiver();
    const before = await masterFigures(redis);
    expect(before.length, 'three masters').toBe(3);

    const unexpected: string[] = [];
    const accounts: { key: string; batchId: string; listingId: string }[] = [];
    const started = Date.now();
    await pool(ACCOUNTS, CONCURRENCY, async () => {
      const made = await account(receiver!.url, unexpected).catch((error: unknown) => {
        unexpected.push(`error: ${String(error)}`.slice(0, 300)); // a store's call refused, say
        return undefined;
      });
      if (made) accounts.push(made);
    });
    // Stored: each batch completes, then a status update of one of its listings is accepted.
    await pool(accounts.length, CONCURRENCY, async (i) => {
      const { key, batchId, listingId } = accounts[i]!;
      const completed = await batchCompleted(key, batchId, 300_000).catch(() => undefined);
      if (!completed) return void unexpected.push(`batch ${batchId} not completed`);
      const updates = [{ listing_id: listingId, status: 'under_contract', at: new Date().toISOString() }];
      const status = await api('POST', '/api/v1/listings/status', { key, body: { updates } });
      if (status.status !== 200)
        unexpected.push(
          `POST /listings/status ${status.status} ${JSON.stringify(status.body).slice(0, 300)}`,
        );
    });
    // Each account's webhook hears of its completed batch.
    const delivered = () => {
      const bodies = receiver!.received.map((r) => r.body).join('\n');
      return accounts.filter((a) => bodies.includes(a.batchId)).length;
    };
    await eventually(
      async () => (delivered() === accounts.length ? true : undefined),
      300_000,
      'deliveries',
    ).catch(() => unexpected.push(`webhook deliveries: ${delivered()} batches of ${accounts.length}`));
    const after = await masterFigures(redis);

    const byNode = after.map((a) => {
      const b = before.find((x) => x.node === a.node)!;
      return {
        node: a.node,
        keys: a.keys - b.keys,
        dataset: a.dataset - b.dataset,
        used: a.used - b.used,
        crossSlot: a.crossSlot - b.crossSlot,
      };
    });
    const sum = (field: 'keys' | 'dataset' | 'used') => byNode.reduce((s, n) => s + n[field], 0);
    const share = (n: (typeof byNode)[number], field: 'keys' | 'dataset' | 'used') =>
      Math.round((1000 * n[field]) / sum(field)) / 10;
    const figures = {
      accounts: accounts.length,
      seconds: Math.round((Date.now() - started) / 1000),
      masters: byNode.map((n) => ({
        node: n.node,
        keys: n.keys,
        keys_share_pct: share(n, 'keys'),
        dataset_bytes: n.dataset,
        dataset_share_pct: share(n, 'dataset'),
        used_memory_bytes: n.used,
        used_share_pct: share(n, 'used'),
        crossslot_errors: n.crossSlot,
      })),
      unexpected: unexpected.length,
      unexpected_kinds: [...new Set(unexpected.map((u) => u.replace(/[0-9a-f-]{36}/g, '<id>')))].slice(0, 20),
    };
    report('redis key spread', figures);

    expect(unexpected.slice(0, 20), 'every request answered as expected').toEqual([]);
    expect(accounts.length).toBe(ACCOUNTS);
    expect(
      byNode.map((n) => n.crossSlot),
      'no CROSSSLOT answered',
    ).toEqual([0, 0, 0]);
    for (const n of byNode) {
      expect(share(n, 'keys'), `${n.node}: share of the keys`).toBeLessThanOrEqual(50);
      expect(share(n, 'dataset'), `${n.node}: share of the memory`).toBeLessThanOrEqual(50);
    }
  }, 1_200_000);
});
