// Statements that find listings by id must use the sort keys they are written for. ClickHouse
// resolves an unqualified name in WHERE to a select-list alias of the same name first, so a
// `toString(listing_id) AS listing_id` in the list turns `listing_id IN (…)` into a condition on
// toString(listing_id), which no index can use: every granule is read (10 M listings: seconds per
// estimate answer and per GET /listings/{id}). EXPLAIN indexes = 1 against the real server shows the
// condition the primary key is searched with.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { statesByIdQuery, statesInScopeQuery } from '../../common/lifecycle/states.ts';
import { listingQuery } from '../../ingest/lifecycle/listing-details.ts';
import { createTestKey, testClickHouse } from '../support/api.ts';
import { pushListings } from '../support/lifecycle.ts';

/** The condition the primary key is searched with, as EXPLAIN indexes = 1 prints it. */
async function primaryKeyCondition(sql: string, params: Record<string, unknown>): Promise<string> {
  const result = await testClickHouse().query({
    query: `EXPLAIN indexes = 1 ${sql}`,
    query_params: params,
    format: 'TabSeparatedRaw',
  });
  const plan = await result.text();
  const section = plan.slice(plan.indexOf('PrimaryKey'));
  const condition = /Condition: (.*)/.exec(section)?.[1];
  if (!condition) throw new Error(`no primary key condition in the plan:\n${plan}`);
  return condition;
}

describe('listings found by id use the sort key', () => {
  let id: string;
  let account: string;

  beforeAll(async () => {
    // A stored listing, so that both tables have a part to plan a read of.
    const key = await createTestKey();
    account = key.account_id;
    id = (await pushListings(key.key, [{}]))[0]!;
  });

  it('happy: the listing states by id search (is_test, city, property_type, listing_id) itself', async () => {
    const condition = await primaryKeyCondition(statesByIdQuery.sql, { ids: [id, randomUUID()] });
    expect(condition).toMatch(/^\(\(is_test, city, property_type, listing_id\) in /);
  });

  it('happy: the listing states in a scope search every key column, the id last', async () => {
    const condition = await primaryKeyCondition(statesInScopeQuery.sql, {
      isTest: 1,
      city: 'dar_es_salaam',
      type: 'apartment',
      ids: [id, randomUUID()],
    });
    for (const column of ['is_test', 'city', 'property_type']) expect(condition).toContain(`(${column} in [`);
    expect(condition).toMatch(/\(listing_id in 2-element set\)/);
  });

  it('happy: the stored listing by id searches (is_test, city, property_type, listing_id) itself', async () => {
    const condition = await primaryKeyCondition(listingQuery.sql, { id, account });
    expect(condition).toMatch(/^\(\(is_test, city, property_type, listing_id\) in /);
  });
});
