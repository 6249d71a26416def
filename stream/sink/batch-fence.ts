// The fence of one Kafka batch. The consumer (batch-run.ts) makes one per batch and hands it to the
// handler in the batch's context; every write the handler makes for the batch — listings, views,
// status changes, quarantine, image checks — passes it to its writer (clickhouse-writer.ts `write`).
//
// When the batch is revoked (its partition moved, the member lost its session: `signal` aborts), the
// batch is never committed, and its writes are either all dropped or all completed:
// - dropped, when nothing of the batch can have been stored yet (no insert holding its rows
//   succeeded, or failed in a way that may have stored it, and none is in flight): every write
//   rejects and its rows leave the inserts. This is the ClickHouse-outage case.
// - completed, otherwise: a handler writing two tables (status changes and states; photos and image
//   checks) must not end with one stored and the other dropped, since the replay of the new owner
//   skips positions it finds stored. The rows land (the same insert tokens make a doubtful attempt
//   land once) and the batch is still not committed; the new owner's replay guard sees them.

/** The batch's partition was revoked (or the member lost its session): nothing of it is committed. */
export class BatchRevokedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BatchRevokedError';
  }
}

export class BatchFence {
  private inFlight = 0;
  private mayBeStored = false;
  private dropped = false;
  private readonly droppers = new Set<() => void>();

  constructor(readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.decide(), { once: true });
  }

  /** Revoked, and nothing of the batch can be stored: its writes are refused. */
  get refusesWrites(): boolean {
    return this.signal.aborted && !this.mayBeStored;
  }

  /**
   * A writer holds rows of this batch: `drop` takes them out and rejects their write, if the batch
   * is revoked before any of it may be stored. Returns the release (the write is settled).
   */
  hold(drop: () => void): () => void {
    this.droppers.add(drop);
    return () => this.droppers.delete(drop);
  }

  /** An insert holding rows of this batch is being sent. */
  attemptStarted(): void {
    this.inFlight++;
  }

  /** That insert ended; `mayHaveStored`: it succeeded, or failed without certainty that it did not. */
  attemptEnded(mayHaveStored: boolean): void {
    this.inFlight--;
    if (mayHaveStored) this.mayBeStored = true;
    this.decide();
  }

  private decide(): void {
    if (!this.signal.aborted || this.dropped || this.mayBeStored || this.inFlight > 0) return;
    this.dropped = true;
    const drops = [...this.droppers];
    this.droppers.clear();
    for (const drop of drops) drop();
  }

  /** The reason writes are refused with. */
  reason(): Error {
    const reason: unknown = this.signal.reason;
    return reason instanceof Error ? reason : new BatchRevokedError('the batch was revoked');
  }
}
