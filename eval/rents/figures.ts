// The figures of one method on the evaluated listings: how many it estimated, its median absolute
// percentage error, the shares within 10 % and 20 %, and (where it gives one) how often its 80 %
// interval holds the actual rent. Pure, like common/estimate/accuracy.ts whose definitions it uses.
import { ape, median } from '../../common/estimate/accuracy.ts';

export interface Prediction {
  actual: number;
  /** NaN when the method gave no estimate. */
  estimate: number;
  low?: number;
  high?: number;
}

export interface MethodFigures {
  n: number;
  medianApe: number | null;
  within10: number | null;
  within20: number | null;
  coverage: number | null;
}

export function methodFigures(predictions: Prediction[]): MethodFigures {
  const estimated = predictions.filter((p) => Number.isFinite(p.estimate));
  const apes = estimated.map((p) => ape(p.actual, p.estimate));
  const share = (limit: number) => (apes.length ? apes.filter((a) => a <= limit).length / apes.length : null);
  const withInterval = estimated.filter((p) => p.low !== undefined && p.high !== undefined);
  return {
    n: estimated.length,
    medianApe: median(apes),
    within10: share(0.1),
    within20: share(0.2),
    coverage: withInterval.length
      ? withInterval.filter((p) => p.actual >= p.low! && p.actual <= p.high!).length / withInterval.length
      : null,
  };
}

/** Up to `n` of `rows`, drawn with a fixed seed (the same rows on every run). */
export function sample<T>(rows: T[], n: number): T[] {
  let seed = 0x2545f491;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const copy = [...rows];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}
