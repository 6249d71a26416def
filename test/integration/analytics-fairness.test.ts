// One account's burst of analytics must not stall the others' (analytics-api/admission.ts): a
// gateway of its own with small limits (2 computations at once, 1 per account, 4 waiting per
// account) takes a flood of distinct velocity questions (cache misses) from five keys of one
// account: the account's queue fills, the rest is refused at once with 429 concurrency_limited,
// and another account's pricing question runs at the next free slot — it is answered while the
// flood's admitted requests are still waiting, not after them.
import { describe, expect, it } from 'vitest';
import { createTestKey } from '../support/api.ts';
import { gatewayForFile } from '../support/auth.ts';

const gateway = gatewayForFile({
  ANALYTICS_MAX_IN_FLIGHT: '2',
  ANALYTICS_MAX_IN_FLIGHT_PER_ACCOUNT: '1',
  ANALYTICS_QUEUE_PER_ACCOUNT: '4',
});

async function get(path: string, key: string) {
  const response = await fetch(`${gateway().baseUrl}${path}`, { headers: { 'X-API-Key': key } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** Distinct quarters (1971-Q1 …): each velocity question of the flood is a cache miss. */
const quarter = (i: number) => `${1971 + Math.floor(i / 4)}-Q${(i % 4) + 1}`;

describe('analytics fairness across accounts', () => {
  it("error: a flood from five keys of one account is queued then refused (429 concurrency_limited); another account's question is answered ahead of the flood's queue", async () => {
    const first = await createTestKey();
    const floodKeys = [first];
    for (let i = 0; i < 4; i += 1) floodKeys.push(await createTestKey({ accountId: first.account_id }));
    const victim = await createTestKey();

    let outstanding = 0;
    let answered = 0;
    const flood = Array.from({ length: 30 }, (_, i) => {
      outstanding += 1;
      const key = floodKeys[i % floodKeys.length]!.key;
      return get(`/api/v1/analytics/velocity?city=mwanza&type=apartment&period=${quarter(i)}`, key).finally(
        () => {
          outstanding -= 1;
          answered += 1;
        },
      );
    });
    // Wait until all but the admitted ones (1 running + 4 waiting) have their answer.
    while (answered < 25 && outstanding > 0) await new Promise((resolve) => setTimeout(resolve, 20));

    let outstandingWhenVictimAnswered = -1;
    const victimAnswer = await get(
      `/api/v1/analytics/pricing?city=mwanza&type=apartment&period=${quarter(200 + Math.floor(Math.random() * 200))}`,
      victim.key,
    ).finally(() => (outstandingWhenVictimAnswered = outstanding));
    const floodAnswers = await Promise.all(flood);

    expect(victimAnswer.status).toBe(200);

    const refused = floodAnswers.filter((a) => a.status === 429);
    const admitted = floodAnswers.filter((a) => a.status === 200);
    expect(refused.length + admitted.length).toBe(30);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const answer of refused) {
      expect(answer.body.error).toMatchObject({
        code: 'concurrency_limited',
        retriable: true,
        details: { running_limit: 1, queue_limit: 4 },
      });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The victim did not wait for the flood's queue: most of the admitted flood was still pending.
    expect(outstandingWhenVictimAnswered).toBeGreaterThanOrEqual(2);
  });
});
