// Who may run an image request when (docs/webhooks.md "Image checks"):
// - accounts share IMAGE_CHECK_CONCURRENCY slots fairly (fair-pool.ts): IMAGE_CHECK_PER_ACCOUNT
//   each before any account borrows idle ones, in turns, so one tenant's hanging image servers
//   delay only that tenant;
// - at most IMAGE_CHECK_PER_HOST requests at once go to one resolved address, however many names
//   point at it (wildcard subdomains used to get a limit each). The outbound client takes the
//   address slot after DNS, which runs inside the request's deadline.
import type { FairPool } from './fair-pool.ts';
import { createFairPool } from './fair-pool.ts';
import { createLimiter } from './limiter.ts';

export interface ImagePoolSettings {
  IMAGE_CHECK_CONCURRENCY: number;
  IMAGE_CHECK_PER_ACCOUNT: number;
  IMAGE_CHECK_PER_HOST: number;
}

export interface ImagePools {
  /** Account slots: wrap each image's check (and its photo download) in accounts.run(account_id, …). */
  accounts: FairPool;
  /** The outbound client's connectSlot: one queue per resolved address. */
  perAddress<T>(address: string, task: () => Promise<T>): Promise<T>;
  /** Shutdown: whatever waits for a slot rejects at once. */
  abort(error: Error): void;
}

export function createImagePools(env: ImagePoolSettings): ImagePools {
  const share = Math.min(env.IMAGE_CHECK_PER_ACCOUNT, env.IMAGE_CHECK_CONCURRENCY);
  const accounts = createFairPool(env.IMAGE_CHECK_CONCURRENCY, share);
  // Unbounded in total: the account pool already bounds what runs.
  const addresses = createLimiter(Number.POSITIVE_INFINITY, env.IMAGE_CHECK_PER_HOST);
  return {
    accounts,
    perAddress: (address, task) => addresses.run(address, task),
    abort(error) {
      accounts.abort(error);
      addresses.abort(error);
    },
  };
}
