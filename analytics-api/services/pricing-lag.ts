// Which pricing scopes' summaries lagged their stored listings lately, in this API process. While a
// group is being loaded its summary lags at every answer, and reading the summaries first would
// cost each of those answers a second statement (p50 20–22 ms instead of 12–14 on the 10 M-listing
// benchmark). So a scope found lagging is read from its prices alone for `memoryMs`, then tried
// against its summary again. Only the path depends on it: both give the same answer.
export interface PricingLag {
  /** True while `scope` is remembered as lagging. */
  has(scope: string): boolean;
  /** Remembers `scope` as lagging for the next `memoryMs`. */
  add(scope: string): void;
}

/** More scopes than the API can be asked about at once; past it, expired entries are dropped. */
const MAX_REMEMBERED = 10_000;

export function createPricingLag(memoryMs = 30_000, now: () => number = Date.now): PricingLag {
  const until = new Map<string, number>();
  return {
    has(scope) {
      const expires = until.get(scope);
      if (expires === undefined) return false;
      if (expires > now()) return true;
      until.delete(scope);
      return false;
    },
    add(scope) {
      if (until.size >= MAX_REMEMBERED) {
        const at = now();
        for (const [key, expires] of until) if (expires <= at) until.delete(key);
        if (until.size >= MAX_REMEMBERED) until.clear();
      }
      until.set(scope, now() + memoryMs);
    },
  };
}
