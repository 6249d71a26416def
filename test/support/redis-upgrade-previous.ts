// The previous release (the one `npm run redis:migrate` upgrades from), checked out beside the
// repository with `git worktree`, and the modules of it that the upgrade test writes a store with.
// Its modules are imported by absolute path, so they write exactly the names that release wrote.
// The interfaces below are what the test calls of them: that release is fixed, so are they.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Redis } from 'ioredis';

/** The commit before the keys had tags of their own. */
export const PREVIOUS_RELEASE = '6c9e375';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Mode = 'live' | 'test';
export interface PreviousKey {
  id: string;
  key: string;
  account_id: string;
  mode: Mode;
  tier: string;
  role: string;
  rate_limit: number;
}
export interface PreviousWebhook {
  id: string;
  account_id: string;
  mode: Mode;
  url: string;
  secret: string;
  [field: string]: unknown;
}
export interface PreviousBatch {
  batch_id: string;
  account_id: string;
  is_test: boolean;
  total: number;
  duplicates: number;
  failed_indexes: number[];
}
type Scope = { endpoint: string; accountId: string; mode: Mode };
type StoredResponse =
  | { status: number; body: string }
  | { status: number; error: { code: string; requestId: string; digest: string } };
type Claim = { listingId: string; position: string };

export interface PreviousModules {
  createKeyStore(
    redis: Redis,
    prefix: string,
  ): {
    create(input: {
      mode: Mode;
      tier: string;
      role?: string;
      rateLimit?: number;
      accountId?: string;
    }): Promise<PreviousKey>;
    authorize(key: string, endpoint: string): Promise<{ outcome: string }>;
  };
  webhookStore(
    redis: Redis,
    prefix: string,
  ): {
    create(input: {
      account_id: string;
      mode: Mode;
      url: string;
      events: string[];
      description: string;
    }): Promise<PreviousWebhook | null>;
    get(id: string): Promise<PreviousWebhook | null>;
    recordFailure(id: string, at: string, reason: string): Promise<void>;
  };
  batchStore(
    redis: Redis,
    prefix: string,
  ): {
    outboxKey: string;
    markStored(batchId: string, listingIds: string[]): Promise<boolean>;
    get(batchId: string): Promise<Record<string, unknown> | null>;
  };
  admissionStore(
    redis: Redis,
    prefix: string,
  ): {
    admit(request: {
      batch: PreviousBatch;
      owner: { accountId: string; mode: Mode };
      candidates: string[];
      limit: number;
      at: Date;
    }): Promise<{ kind: string; created?: string[] }>;
    confirm(ids: string[], batchId: string): Promise<void>;
  };
  createFanout(deps: Record<string, unknown>): {
    ensureGroup(): Promise<void>;
    poll(count?: number): Promise<number>;
  };
  deliveryQueue(redis: Redis, prefix: string): object;
  idempotencyStore(
    redis: Redis,
    prefix: string,
  ): {
    claim(scope: Scope, key: string, body: Buffer): Promise<{ kind: string; recordKey?: string }>;
    complete(
      recordKey: string,
      response: StoredResponse,
      budget: { owner: { accountId: string; mode: Mode }; limit: number },
    ): Promise<boolean>;
  };
  snapshotStore(
    redis: Redis,
    prefix: string,
  ): {
    addPart(
      account: string,
      isTest: boolean,
      id: string,
      part: { part: number; parts: number; externalIds: string[]; now: string; maxIds: number },
    ): Promise<{ state: string }>;
    read(account: string, isTest: boolean, id: string): Promise<Record<string, unknown> | null>;
  };
  listingOwners(redis: Redis, prefix: string): { claim(claims: Claim[]): Promise<string[]> };
  ownersRebuildKeys(prefix: string): { marker: string; lock: string };
}

const modulePaths: Record<keyof PreviousModules, string> = {
  createKeyStore: 'common/auth/key-store.ts',
  webhookStore: 'common/webhooks/store.ts',
  batchStore: 'common/batches.ts',
  admissionStore: 'ingest/listings/admission.ts',
  createFanout: 'stream/webhooks/fanout.ts',
  deliveryQueue: 'stream/webhooks/queue.ts',
  idempotencyStore: 'ingest/idempotency.ts',
  snapshotStore: 'ingest/lifecycle/snapshot-store.ts',
  listingOwners: 'stream/listings/owners.ts',
  ownersRebuildKeys: 'stream/listings/owners.ts',
};

/** Checks the previous release out into a temporary directory; `remove` takes it away again. */
export async function checkOutPreviousRelease(): Promise<{ modules: PreviousModules; remove(): void }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rls-previous-release-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'pipe' });
  try {
    git('worktree', 'add', '--detach', dir, PREVIOUS_RELEASE);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `cannot check out the previous release ${PREVIOUS_RELEASE} (a shallow clone lacks it: fetch the history): ` +
        String((error as { stderr?: Buffer }).stderr ?? error),
    );
  }
  const remove = () => {
    git('worktree', 'remove', '--force', dir);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    const entries = await Promise.all(
      Object.entries(modulePaths).map(async ([name, file]) => {
        const module = (await import(pathToFileURL(path.join(dir, file)).href)) as Record<string, unknown>;
        if (typeof module[name] !== 'function')
          throw new Error(`${file} of ${PREVIOUS_RELEASE} lacks ${name}`);
        return [name, module[name]] as const;
      }),
    );
    return { modules: Object.fromEntries(entries) as unknown as PreviousModules, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
