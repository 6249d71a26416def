// npm run bench:views — ClickHouse CPU per stored listing of each materialized view fed by
// `listings`: insert CPU (the view's SELECT over each inserted block and the insert into its
// target) and merge CPU (merging the target's parts), from the server's own CPU counters.
//
// The migrations are applied to a template database (VIEWS_DATABASE, default rls_viewcost). Each
// scenario then builds a scratch database holding `listings` and one view with its target (plus
// any view fed by that target), inserts VIEWS_LISTINGS generated stream-like listings (recent
// listed_at, real neighbourhoods from `locations`) in blocks of VIEWS_BLOCK rows with merges
// stopped, then merges every part (OPTIMIZE … FINAL). The CPU is the growth of the server-wide
// UserTimeMicroseconds + SystemTimeMicroseconds of system.events over each phase, so nothing else
// may use this server meanwhile (run it against `npm run stack -- up` alone). A scenario without
// any view is the baseline; a view's figure is its scenario minus the baseline, median of
// VIEWS_ROUNDS rounds. One final merge of all parts rewrites each row once; background merges
// rewrite it a few times, so the merge column is a lower bound, comparable between views.
// VIEWS_ONLY=<view names> measures only those (VIEWS_ONLY=none: only the baseline and the totals).
import { createClient } from '@clickhouse/client';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { benchClickHouse } from './clickhouse-server.ts';

const template = process.env.VIEWS_DATABASE ?? 'rls_viewcost';
const scratch = `${template}_scratch`;
const listings = Number(process.env.VIEWS_LISTINGS ?? 200_000);
const block = Number(process.env.VIEWS_BLOCK ?? 10_000);
const rounds = Number(process.env.VIEWS_ROUNDS ?? 3);
const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);

await migrate({
  ...benchClickHouse,
  database: template,
  log: () => {},
});
const ch = createClient({
  ...benchClickHouse,
  request_timeout: 600_000,
});
const rows = async <T>(query: string, query_params: Record<string, unknown> = {}) =>
  (await (await ch.query({ query, query_params, format: 'JSONEachRow' })).json<T>()) as T[];

interface View {
  name: string;
  target: string;
  sources: string[];
  ddl: string;
  /** The database the view was read from (its DDL names it). */
  from: string;
}
async function viewsOf(db: string): Promise<View[]> {
  const qualified = (word: string) => new RegExp(`\\b${word}\\s+${db}\\.(\\w+)`, 'g');
  return (
    await rows<{ name: string; ddl: string }>(
      `SELECT name, create_table_query AS ddl FROM system.tables
       WHERE database = {db:String} AND engine = 'MaterializedView' ORDER BY name`,
      { db },
    )
  ).map(({ name, ddl }) => ({
    name,
    ddl,
    from: db,
    target: [...ddl.matchAll(qualified('TO'))][0]![1]!,
    sources: [...ddl.matchAll(qualified('FROM'))].map((m) => m[1]!),
  }));
}
const views = await viewsOf(template);

/** The views fed by `listings`, each with the views its target feeds in turn. */
function chainOf(view: View, all = views): View[] {
  const fed = all.filter((v) => v.sources.includes(view.target) && v !== view);
  return [view, ...fed.flatMap((v) => chainOf(v, all))];
}
const fromListings = views.filter((v) => v.sources.includes('listings'));

const cpuMicros = async () =>
  Number(
    (
      await rows<{ us: string }>(
        `SELECT sum(value) AS us FROM system.events
         WHERE event IN ('UserTimeMicroseconds', 'SystemTimeMicroseconds')`,
      )
    )[0]!.us,
  );

// Stream-like listings: listed in the last 30 days, spread over every city's neighbourhoods,
// 5,000 accounts, rents rounded to 10,000 TZS, a third with coordinates.
const generator = (offset: number) => `
  INSERT INTO ${scratch}.listings (listing_id, account_id, batch_id, is_test, listed_at, stored_at, title,
    description, property_type, price, currency, price_tzs, fx_rate_to_tzs, bedrooms, bathrooms, area_sqm,
    address, latitude, longitude, amenities, images, whatsapp_number, location_id, external_id, h3_index,
    city, neighbourhood, neighbourhood_id, location_source, version, _topic, _partition, _offset)
  WITH
    (SELECT groupArray((id, city, name, latitude, longitude)) FROM ${template}.locations
     WHERE kind = 'neighbourhood') AS places,
    places[1 + cityHash64(number, 1) % length(places)] AS place,
    cityHash64(number, 2) % 6 AS type_index,
    cityHash64(number, 3) % 3 = 0 AS placed_by_point,
    place.4 + (cityHash64(number, 4) % 2000) / 100000 - 0.01 AS lat,
    place.5 + (cityHash64(number, 5) % 2000) / 100000 - 0.01 AS lng
  SELECT
    generateUUIDv4(number), concat('acct', toString(cityHash64(number, 6) % 5000)), generateUUIDv4(),
    0, now() - toIntervalSecond(cityHash64(number, 7) % (30 * 86400)), now(),
    concat(['Modern', 'Spacious', 'Quiet', 'Bright'][1 + number % 4], ' ', ['apartment', 'house', 'studio', 'room', 'office', 'plot'][1 + type_index], ' in ', place.3),
    repeat('Close to shops and transport. ', 1 + number % 6),
    CAST(toInt8(1 + type_index) AS Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)),
    (20 + cityHash64(number, 8) % 300) * 10000, 'TZS', (20 + cityHash64(number, 8) % 300) * 10000, 1,
    if(type_index < 2, 1 + cityHash64(number, 9) % 4, NULL), if(type_index < 2, 1 + cityHash64(number, 9) % 3, NULL),
    if(number % 4 = 0, NULL, 30 + cityHash64(number, 10) % 200),
    if(placed_by_point, '', concat(toString(number % 300), ' ', place.3, ' Road')),
    if(placed_by_point, lat, NULL), if(placed_by_point, lng, NULL),
    ['parking', 'water'], [concat('https://img.example/', toString(number), '.jpg')],
    '+255700000000', if(placed_by_point, NULL, place.1), if(number % 5 = 0, concat('ext-', toString(number)), ''),
    geoToH3(if(placed_by_point, lng, place.5), if(placed_by_point, lat, place.4), 8),
    place.2, place.3, place.1, if(placed_by_point, 'coordinates', 'location_id'), 1,
    'rls.listings.v1', number % 12, number
  FROM numbers(${offset}, ${block})`;

async function scenario(chain: View[]): Promise<{ insert: number; merge: number }> {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${scratch} SYNC` });
  await ch.command({ query: `CREATE DATABASE ${scratch}` });
  const tables = ['listings', ...new Set(chain.map((v) => v.target))];
  for (const table of tables)
    await ch.command({ query: `CREATE TABLE ${scratch}.${table} AS ${chain[0]?.from ?? template}.${table}` });
  for (const view of chain) await ch.command({ query: view.ddl.replaceAll(`${view.from}.`, `${scratch}.`) });
  for (const table of tables) await ch.command({ query: `SYSTEM STOP MERGES ${scratch}.${table}` });
  const t0 = await cpuMicros();
  for (let offset = 0; offset < listings; offset += block)
    await ch.command({ query: generator(offset), clickhouse_settings: { insert_deduplicate: 0 } });
  const t1 = await cpuMicros();
  for (const table of tables) await ch.command({ query: `SYSTEM START MERGES ${scratch}.${table}` });
  for (const table of tables) await ch.command({ query: `OPTIMIZE TABLE ${scratch}.${table} FINAL` });
  const t2 = await cpuMicros();
  return { insert: (t1 - t0) / listings, merge: (t2 - t1) / listings };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const only = process.env.VIEWS_ONLY?.split(',');
const scenarios: [string, View[]][] = [
  ['(none: listings alone)', []],
  ...fromListings
    .filter((v) => !only || only.includes(v.name))
    .map((v): [string, View[]] => [v.name, chainOf(v)]),
  ['(all views on listings)', [...new Set(fromListings.flatMap((v) => chainOf(v)))]],
];
// VIEWS_COMPARE=<database with an earlier schema>: its views on listings too, in the same rounds
// (same load), e.g. a database migrated without the newest migrations.
const compare = process.env.VIEWS_COMPARE;
if (compare) {
  const earlier = await viewsOf(compare);
  const chains = earlier.filter((v) => v.sources.includes('listings')).flatMap((v) => chainOf(v, earlier));
  scenarios.push([`(all views on listings in ${compare})`, [...new Set(chains)]]);
}
const results = new Map<string, { insert: number[]; merge: number[] }>();
for (let round = 0; round < rounds; round++) {
  for (const [name, chain] of scenarios) {
    const r = await scenario(chain);
    const entry = results.get(name) ?? { insert: [], merge: [] };
    entry.insert.push(r.insert);
    entry.merge.push(r.merge);
    results.set(name, entry);
  }
  log(`round ${round + 1} of ${rounds} done`);
}
await ch.command({ query: `DROP DATABASE IF EXISTS ${scratch} SYNC` });

const base = results.get(scenarios[0]![0])!;
const baseInsert = median(base.insert);
const baseMerge = median(base.merge);
const fmt = (us: number) => us.toFixed(2).padStart(7);
log(
  `${listings} listings in blocks of ${block}, ${rounds} rounds, medians; µs of ClickHouse CPU per listing ` +
    `(load average ${(await import('node:os'))
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
);
log(`${'view (and the views fed by its target)'.padEnd(58)} insert   merge   total`);
for (const [name, chain] of scenarios) {
  const r = results.get(name)!;
  const isBase = name === scenarios[0]![0];
  const insert = median(r.insert) - (isBase ? 0 : baseInsert);
  const merge = median(r.merge) - (isBase ? 0 : baseMerge);
  const label = chain.length > 1 && chain.length < 4 ? `${name} (+${chain.length - 1})` : name;
  log(`${label.padEnd(58)}${fmt(insert)} ${fmt(merge)} ${fmt(insert + merge)}`);
}
await ch.close();
