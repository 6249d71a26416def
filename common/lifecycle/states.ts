// The current lifecycle state of listings (table listing_states, migration 0050), read by id. The
// ingest API checks status updates against it; the stream applies changes on top of it.
// listing_states is sorted like `listings` (mode, city, type, id), so ids are first mapped to that
// key through listing_lookup (sorted by id) and the states are then read by their key range; ids
// whose mode, city and type are known are read by that key directly.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { listingStatuses, type ListingStatus } from '../domain/lifecycle.ts';
import { propertyTypes, type PropertyType } from '../domain/listing.ts';
import { listingStatesTable, type ListingIdentity, type ListingStateRow } from '../warehouse/lifecycle.ts';
import { listingLookupTable } from '../warehouse/listing-lookup.ts';
import { defineQuery } from '../warehouse/query.ts';

export interface ListingState {
  listing_id: string;
  account_id: string;
  is_test: boolean;
  external_id: string;
  /** Instants in epoch milliseconds (whole seconds: ClickHouse DateTime). */
  listed_at: number;
  property_type: PropertyType;
  city: string;
  neighbourhood: string;
  status: ListingStatus;
  status_at: number;
  spell_started_at: number;
  /** The exit of the current spell while off the market; 0 on the market. */
  exited_at: number;
  exit_days: number;
  /** Last stored, re-sent or changed: the expiry clock. */
  updated_at: number;
  version: number;
}

/** Ids per statement: the parameter travels as one array (multipart past 4 KB). */
const CHUNK = 2_000;

const stateSelect = `
  SELECT toString(listing_id) AS listing_id, account_id, is_test, external_id,
         toUnixTimestamp(listed_at) AS listed_at, toString(property_type) AS property_type, city,
         neighbourhood, toString(status) AS status, toUnixTimestamp(status_at) AS status_at,
         toUnixTimestamp(spell_started_at) AS spell_started_at, toUnixTimestamp(exited_at) AS exited_at,
         exit_days, toUnixTimestamp(updated_at) AS updated_at, version
  FROM ${listingStatesTable.name} AS s`;

// Each listing's newest row, as ReplacingMergeTree(version) keeps it after merges (a tie on the
// version: the row written last). Not FINAL: for the few granules an id read selects, FINAL cost
// ~15 ms more per statement at 10 M listings than sorting the rows it reads (p50 35 against 51 ms).
const newestOfEach = 'ORDER BY s.version DESC, s.updated_at DESC LIMIT 1 BY s.listing_id';

/**
 * The listing identity columns that do not change form between reads (ids as text, the mode as a
 * number), as `listings` holds them and the lifecycle tables copy them.
 */
export const listingIdentityRecord = z.object({
  listing_id: z.string(),
  account_id: z.string(),
  is_test: z.number(),
  external_id: z.string(),
  city: z.string(),
  neighbourhood: z.string(),
});

/** A row of stateSelect: instants as epoch seconds. */
export const listingStateRecord = listingIdentityRecord.extend({
  listed_at: z.number(),
  property_type: z.enum(propertyTypes),
  status: z.enum(listingStatuses),
  status_at: z.number(),
  spell_started_at: z.number(),
  exited_at: z.number(),
  exit_days: z.number(),
  updated_at: z.number(),
  version: z.number(),
});
type StateRecord = z.infer<typeof listingStateRecord>;

// The key columns are named through the table (`s.`): unqualified, `listing_id` and
// `property_type` would be the select list's toString() aliases, which no index can use, and every
// granule of the table would be read (test/integration/query-index-use.test.ts).
export const statesByIdQuery = defineQuery({
  name: 'listing_states_by_id',
  params: z.object({ ids: z.array(z.string()) }),
  row: listingStateRecord,
  sql: `${stateSelect}
        WHERE (s.is_test, s.city, s.property_type, s.listing_id) IN (
          SELECT is_test, city, property_type, listing_id FROM ${listingLookupTable.name}
          WHERE listing_id IN {ids:Array(UUID)})
        ${newestOfEach}`,
});

/** Ids whose mode, city and type the caller knows: read by the whole key, without listing_lookup. */
export const statesInScopeQuery = defineQuery({
  name: 'listing_states_in_scope',
  params: z.object({
    isTest: z.union([z.literal(0), z.literal(1)]),
    city: z.string(),
    type: z.enum(propertyTypes),
    ids: z.array(z.string()),
  }),
  row: listingStateRecord,
  sql: `${stateSelect}
        WHERE s.is_test = {isTest:UInt8} AND s.city = {city:String}
          AND s.property_type = {type:String} AND s.listing_id IN {ids:Array(UUID)}
        ${newestOfEach}`,
});

const activeStockQuery = defineQuery({
  name: 'listing_states_active_stock',
  params: z.object({ account: z.string(), isTest: z.union([z.literal(0), z.literal(1)]) }),
  row: z.object({ listing_id: z.string(), external_id: z.string() }),
  sql: `SELECT toString(listing_id) AS listing_id, external_id
            FROM (SELECT listing_id, external_id, status FROM ${listingStatesTable.name} FINAL
                  WHERE account_id = {account:String} AND is_test = {isTest:UInt8})
            WHERE status IN ('active', 'under_contract')`,
});

export function stateOf(r: StateRecord): ListingState {
  return {
    ...r,
    is_test: Number(r.is_test) === 1,
    listed_at: Number(r.listed_at) * 1000,
    status_at: Number(r.status_at) * 1000,
    spell_started_at: Number(r.spell_started_at) * 1000,
    exited_at: Number(r.exited_at) * 1000,
    exit_days: Number(r.exit_days),
    updated_at: Number(r.updated_at) * 1000,
    version: Number(r.version),
  };
}

/**
 * States of listings of one mode, city and type (the estimate's comparables): the same answer as
 * readListingStates for those ids, read without mapping them to their key (p50 16 against 35 ms
 * for 20 ids at 10 M listings). An id of another scope is not found.
 */
export async function readListingStatesInScope(
  clickhouse: ClickHouseClient,
  scope: { isTest: boolean; city: string; type: PropertyType },
  ids: readonly string[],
): Promise<Map<string, ListingState>> {
  const { isTest, city, type } = scope;
  return statesInChunks(ids, (chunk) =>
    statesInScopeQuery.run(clickhouse, { isTest: isTest ? 1 : 0, city, type, ids: chunk }),
  );
}

/** Each distinct id's state, the ids read CHUNK at a time by `read`. */
async function statesInChunks(
  ids: readonly string[],
  read: (chunk: string[]) => Promise<{ rows: StateRecord[] }>,
): Promise<Map<string, ListingState>> {
  const out = new Map<string, ListingState>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += CHUNK) {
    const { rows } = await read(unique.slice(i, i + CHUNK));
    for (const record of rows) out.set(record.listing_id, stateOf(record));
  }
  return out;
}

/** States of the given listing ids that exist (any account: callers check the owner). */
export async function readListingStates(
  clickhouse: ClickHouseClient,
  ids: readonly string[],
): Promise<Map<string, ListingState>> {
  return statesInChunks(ids, (chunk) => statesByIdQuery.run(clickhouse, { ids: chunk }));
}

/**
 * The account's listings on the market in one mode (snapshots). A scan of listing_states, which is
 * sorted for the analytics, not by account: fine for a snapshot's completion, not for a hot path.
 */
export async function readActiveStock(
  clickhouse: ClickHouseClient,
  accountId: string,
  isTest: boolean,
): Promise<{ listing_id: string; external_id: string }[]> {
  const { rows } = await activeStockQuery.run(clickhouse, { account: accountId, isTest: isTest ? 1 : 0 });
  return rows;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The listing `state` is about, as the lifecycle tables' rows lead with it. */
export function listingIdentityRow(state: ListingState): ListingIdentity {
  return {
    listing_id: state.listing_id,
    account_id: state.account_id,
    is_test: state.is_test ? 1 : 0,
    external_id: state.external_id,
    listed_at: iso(state.listed_at),
    property_type: state.property_type,
    city: state.city,
    neighbourhood: state.neighbourhood,
  };
}

/** A row of listing_states for `state` (the processor writes these for re-sends). */
export function stateRow(state: ListingState): ListingStateRow {
  return {
    ...listingIdentityRow(state),
    status: state.status,
    status_at: iso(state.status_at),
    spell_started_at: iso(state.spell_started_at),
    exited_at: iso(state.exited_at),
    exit_days: state.exit_days,
    updated_at: iso(state.updated_at),
    version: state.version,
  };
}
