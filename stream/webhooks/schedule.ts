// When the next attempt happens: the configured schedule, ±10 % jitter (so receivers recovering
// from an outage are not hit by every sender at once), and the receiver's Retry-After if later.
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Delay before attempt number `nextAttempt` (1-based; attempt 1 is the first send), or undefined
 * when the schedule is exhausted.
 */
export function retryDelayMs(
  schedule: readonly number[],
  nextAttempt: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[nextAttempt - 1];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  const asked = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, asked);
}
