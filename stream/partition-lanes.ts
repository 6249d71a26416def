// What a group member keeps per partition while it consumes (offset-consumer.ts): the batches
// handed over and not yet settled, each partition's order of commits, the assignment watches of
// the batches being stored, and the lag last seen. One object with one job: answering "what of this
// partition is still in flight, and in which order may it commit".
import type { AssignmentWatch } from './assignment-watch.ts';
import { BatchRevokedError } from './sink/batch-fence.ts';

/**
 * One partition's order of commits: `tail` settles true once every batch handed over since the
 * chain began is stored and committed, false once one of them failed (the later ones then are not
 * committed: they are read again with it). `failedAt`: the failed batch's first offset, sought back
 * to; the chain starts again with the batch read from there.
 */
export interface CommitChain {
  tail: Promise<boolean>;
  failedAt?: bigint;
}

const newChain = (): CommitChain => ({ tail: Promise.resolve(true) });

export class PartitionLanes {
  private assignedNow: number[] = [];
  private readonly lagByPartition: Record<string, number> = {};
  /** Batches being stored, per partition: revoked when a new assignment leaves their partition out. */
  private readonly watches = new Map<number, Set<AssignmentWatch>>();
  /** Per partition, each batch handed over until it is committed or failed (settles, never rejects). */
  private readonly inFlight = new Map<number, Set<Promise<boolean>>>();
  private readonly chains = new Map<number, CommitChain>();

  /** A new assignment: kafkajs reads every partition again from its committed offset (new chains). */
  reassigned(partitions: number[]): void {
    this.chains.clear();
    this.assignedNow = partitions;
    for (const [partition, watches] of this.watches)
      if (!partitions.includes(partition))
        for (const watch of watches)
          watch.revoke(new BatchRevokedError(`partition ${partition} is no longer assigned to this member`));
    for (const p of Object.keys(this.lagByPartition))
      if (!partitions.includes(Number(p))) delete this.lagByPartition[p];
  }

  assigned(): number[] {
    return this.assignedNow;
  }

  isAssigned(partition: number): boolean {
    return this.assignedNow.includes(partition);
  }

  chainOf(partition: number): CommitChain {
    let chain = this.chains.get(partition);
    if (!chain) this.chains.set(partition, (chain = newChain()));
    return chain;
  }

  /** The failed batch was read again: its partition's order of commits begins anew. */
  restartChain(partition: number): CommitChain {
    const chain = newChain();
    this.chains.set(partition, chain);
    return chain;
  }

  /** Still the partition's current chain (no reassignment or restart since)? */
  isCurrent(partition: number, chain: CommitChain): boolean {
    return this.chains.get(partition) === chain;
  }

  watching(partition: number, watch: AssignmentWatch): () => void {
    const watches = setOf(this.watches, partition);
    watches.add(watch);
    return () => watches.delete(watch);
  }

  /** Adds a handed-over batch (`done` settles when it is committed or failed); returns the lane's size. */
  handedOver(partition: number, done: Promise<boolean>): Set<Promise<boolean>> {
    const lane = setOf(this.inFlight, partition);
    lane.add(done);
    void done.then(() => lane.delete(done));
    return lane;
  }

  /** Resolves once every batch of `partition` handed over here has settled. */
  async settled(partition: number): Promise<void> {
    await Promise.all(this.inFlight.get(partition) ?? []);
  }

  /** Resolves once no batch of any partition is in flight here. */
  async allSettled(): Promise<void> {
    for (
      let lanes = [...this.inFlight.values()];
      lanes.some((l) => l.size);
      lanes = [...this.inFlight.values()]
    )
      await Promise.all(lanes.flatMap((lane) => [...lane]));
  }

  setLag(partition: number, highWatermark: string, nextOffset: bigint | number): void {
    this.lagByPartition[String(partition)] = Math.max(0, Number(highWatermark) - Number(nextOffset));
  }

  lag(): Record<string, number> {
    return { ...this.lagByPartition };
  }
}

function setOf<T>(map: Map<number, Set<T>>, partition: number): Set<T> {
  let set = map.get(partition);
  if (!set) map.set(partition, (set = new Set()));
  return set;
}
