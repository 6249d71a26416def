// Multinomial logistic regression with an L2 penalty, fitted by full-batch gradient descent (Adam,
// fixed step count, zero start): the same data gives the same weights on every machine. Small on
// purpose: a few hundred labelled photos and 365 inputs.

export interface SoftmaxModel {
  /** classes × features */
  weights: Float64Array[];
  bias: Float64Array;
}

export interface FitOptions {
  /** L2 penalty on the weights (not the bias), per photo. */
  lambda: number;
  /** Weight of each row in the loss (default 1 each); normalised to sum 1, as the mean is. */
  rowWeights?: number[];
  steps?: number;
  rate?: number;
}

export function predict(model: SoftmaxModel, x: ArrayLike<number>): Float64Array {
  const k = model.bias.length;
  const z = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    const w = model.weights[c]!;
    let s = model.bias[c]!;
    for (let j = 0; j < w.length; j++) s += w[j]! * x[j]!;
    z[c] = s;
  }
  const max = Math.max(...z);
  let sum = 0;
  for (let c = 0; c < k; c++) sum += z[c] = Math.exp(z[c]! - max);
  for (let c = 0; c < k; c++) z[c]! /= sum;
  return z;
}

/** `labels[i]` is the class index of row i of `x` (each row `features` long). */
export function fitSoftmax(x: Float64Array[], labels: number[], classes: number, options: FitOptions) {
  const { lambda, steps = 400, rate = 0.05 } = options;
  const n = x.length;
  const total = options.rowWeights?.reduce((a, b) => a + b, 0) ?? n;
  const share = x.map((_, i) => (options.rowWeights?.[i] ?? 1) / total);
  const d = x[0]!.length;
  const model: SoftmaxModel = {
    weights: Array.from({ length: classes }, () => new Float64Array(d)),
    bias: new Float64Array(classes),
  };
  // Adam moments, weights then bias per class.
  const m = Array.from({ length: classes }, () => new Float64Array(d + 1));
  const v = Array.from({ length: classes }, () => new Float64Array(d + 1));
  const grad = Array.from({ length: classes }, () => new Float64Array(d + 1));
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  for (let step = 1; step <= steps; step++) {
    for (const g of grad) g.fill(0);
    for (let i = 0; i < n; i++) {
      const p = predict(model, x[i]!);
      const row = x[i]!;
      for (let c = 0; c < classes; c++) {
        const err = (p[c]! - (labels[i] === c ? 1 : 0)) * share[i]!;
        if (err === 0) continue;
        const g = grad[c]!;
        for (let j = 0; j < d; j++) g[j]! += err * row[j]!;
        g[d]! += err;
      }
    }
    for (let c = 0; c < classes; c++) {
      const w = model.weights[c]!;
      const g = grad[c]!;
      for (let j = 0; j <= d; j++) {
        const gj = j < d ? g[j]! + lambda * w[j]! : g[j]!;
        m[c]![j] = beta1 * m[c]![j]! + (1 - beta1) * gj;
        v[c]![j] = beta2 * v[c]![j]! + (1 - beta2) * gj * gj;
        const delta =
          (rate * (m[c]![j]! / (1 - beta1 ** step))) / (Math.sqrt(v[c]![j]! / (1 - beta2 ** step)) + eps);
        if (j < d) w[j]! -= delta;
        else model.bias[c]! -= delta;
      }
    }
  }
  return model;
}
