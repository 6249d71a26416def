// The revocation signal of the Kafka batch a piece of code runs for (issue 13 item 8). The consumer
// (offset-consumer.ts) runs each batch's handler inside runInBatch(signal, …); the ClickHouse
// writer reads batchSignal() when rows are handed to it, so every write a handler makes — listings,
// views, status changes, quarantine, image checks, and whatever a later handler adds — is fenced
// without each handler passing the signal along. When the partition is revoked (a rebalance, a lost
// session), rows not yet sent to ClickHouse are dropped and their write rejects, so the batch
// neither inserts nor commits.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The batch's partition was revoked (or the member lost its session): nothing of it is committed. */
export class BatchRevokedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BatchRevokedError';
  }
}

const current = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` (a batch handler) with `signal` as its batch's revocation signal. */
export function runInBatch<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return current.run(signal, fn);
}

/** The revocation signal of the batch the caller runs for, if any (timers and loops outside a batch have none). */
export function batchSignal(): AbortSignal | undefined {
  return current.getStore();
}
