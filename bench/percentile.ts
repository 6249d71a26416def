/** The `p`th percentile (0–100, nearest rank) of `sorted`, ascending; p 100 is the largest. NaN when empty. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
