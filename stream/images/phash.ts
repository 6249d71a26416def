// 64-bit DCT perceptual hash (the classic pHash): 2-D DCT-II of the 32×32 grey thumbnail, the 8×8
// lowest frequencies, one bit per coefficient above their median. Re-encoding, resizing, a
// watermark or a small crop move few bits; different photos differ in ~half of them
// (docs/webhooks.md has the measured distances). The mirrored hash is that of the photo flipped
// left-right, so a mirrored copy is caught as well.
import { HASH_SIDE } from './decode.ts';

const N = HASH_SIDE;
const K = 8;
// cos((2x + 1) u π / 2N) for u < K, x < N.
const COS = Array.from({ length: K }, (_, u) =>
  Float64Array.from({ length: N }, (_, x) => Math.cos(((2 * x + 1) * u * Math.PI) / (2 * N))),
);

export function phash(grey: Uint8Array, mirrored = false): bigint {
  // Rows first (only the K lowest frequencies are ever needed), then columns.
  const rows = new Float64Array(N * K);
  for (let y = 0; y < N; y++) {
    for (let u = 0; u < K; u++) {
      let sum = 0;
      for (let x = 0; x < N; x++) sum += grey[y * N + (mirrored ? N - 1 - x : x)]! * COS[u]![x]!;
      rows[y * K + u] = sum;
    }
  }
  const coefficients = new Float64Array(K * K);
  for (let v = 0; v < K; v++) {
    for (let u = 0; u < K; u++) {
      let sum = 0;
      for (let y = 0; y < N; y++) sum += rows[y * K + u]! * COS[v]![y]!;
      coefficients[v * K + u] = sum;
    }
  }
  const sorted = Float64Array.from(coefficients).sort();
  const median = (sorted[31]! + sorted[32]!) / 2;
  let hash = 0n;
  for (let i = 0; i < K * K; i++) hash = (hash << 1n) | (coefficients[i]! > median ? 1n : 0n);
  return hash;
}

export function hammingDistance(a: bigint, b: bigint): number {
  let x = a ^ b;
  let bits = 0;
  while (x) {
    x &= x - 1n;
    bits++;
  }
  return bits;
}
