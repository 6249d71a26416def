import { describe, expect, it } from 'vitest';
import { createPricingLag } from '../../analytics-api/services/pricing-lag.ts';

describe('the pricing lag memory', () => {
  it('happy: remembers a lagging scope for its memory time, then forgets it', () => {
    let now = 1_000;
    const lag = createPricingLag(30_000, () => now);
    expect(lag.has('0/mbeya/house/2026-04-01')).toBe(false);
    lag.add('0/mbeya/house/2026-04-01');
    now += 29_999;
    expect(lag.has('0/mbeya/house/2026-04-01')).toBe(true);
    expect(lag.has('0/mbeya/house/2026-07-01')).toBe(false);
    now += 1;
    expect(lag.has('0/mbeya/house/2026-04-01')).toBe(false);
  });

  it('edge: stays bounded: past its size, expired scopes are dropped and current ones kept', () => {
    let now = 0;
    const lag = createPricingLag(100, () => now);
    for (let i = 0; i < 9_999; i++) lag.add(`old/${i}`);
    now = 150; // every old scope expired
    lag.add('keep');
    now = 160;
    lag.add('new'); // the 10,001st: the expired ones go, not 'keep'
    expect(lag.has('keep')).toBe(true);
    expect(lag.has('new')).toBe(true);
  });
});
