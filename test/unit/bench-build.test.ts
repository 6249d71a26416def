// A benchmark build's switch (common/bench-build.ts): guarantees are turned off only where the
// bench launcher declared a benchmark build, never in production, and a process that runs with
// guarantees off says so at boot (the stream worker's own boot: test/integration/bench-build-boot.test.ts).
import { describe, expect, it } from 'vitest';
import { announceBenchBuild, keeps } from '../../common/bench-build.ts';
import { EnvError, parseEnv } from '../../common/env.ts';
import { createLogger } from '../../common/logger.ts';
import { gatewayEnvSchema } from '../../gateway/env.ts';
import { ingestEnvSchema } from '../../ingest/env.ts';
import { streamEnvSchema } from '../../stream/env.ts';
import { noOwners } from '../../stream/listings/owners.ts';

const production = {
  NODE_ENV: 'production',
  KAFKA_BROKERS: 'kafka-1:9092',
  CLICKHOUSE_URL: 'https://clickhouse.internal:8443',
  REDIS_URL: 'rediss://redis.internal:6380',
};
const schemas = { gateway: gatewayEnvSchema, ingest: ingestEnvSchema, stream: streamEnvSchema };

function refusal(schema: Parameters<typeof parseEnv>[0], env: Record<string, string>): string {
  try {
    parseEnv(schema, env);
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('benchmark build switch', () => {
  it('security: production refuses it, even declared as a benchmark build', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      expect(refusal(schema, { ...production, RLS_BENCH_WITHOUT: 'dedupe' }), name).toMatch(
        /RLS_BENCH_WITHOUT: a benchmark build turns guarantees off: refused with NODE_ENV=production/,
      );
      expect(
        refusal(schema, { ...production, RLS_BENCH_BUILD: '1', RLS_BENCH_WITHOUT: 'owners' }),
        name,
      ).toMatch(/RLS_BENCH_WITHOUT: .*refused with NODE_ENV=production/);
      expect(refusal(schema, { ...production, RLS_BENCH_BUILD: '1' }), name).toMatch(
        /RLS_BENCH_BUILD: .*refused with NODE_ENV=production/,
      );
    }
  });

  it('security: outside production it needs the bench-only flag', () => {
    for (const [name, schema] of Object.entries(schemas))
      expect(refusal(schema, { RLS_BENCH_WITHOUT: 'covered-sends' }), name).toMatch(
        /RLS_BENCH_WITHOUT: turns guarantees off: only in a benchmark build \(RLS_BENCH_BUILD=1/,
      );
  });

  it('error: an unknown guarantee is refused, named', () => {
    expect(refusal(streamEnvSchema, { RLS_BENCH_BUILD: '1', RLS_BENCH_WITHOUT: 'owners,quotas' })).toMatch(
      /RLS_BENCH_WITHOUT/,
    );
  });

  it('happy: unset keeps every guarantee; a benchmark build skips those it names', () => {
    const plain = parseEnv(gatewayEnvSchema, production);
    expect(plain.RLS_BENCH_WITHOUT).toEqual([]);
    expect(keeps(plain, 'dedupe') && keeps(plain, 'covered-sends') && keeps(plain, 'owners')).toBe(true);
    const bench = parseEnv(streamEnvSchema, { RLS_BENCH_BUILD: '1', RLS_BENCH_WITHOUT: ' owners, dedupe ' });
    expect(bench.RLS_BENCH_WITHOUT).toEqual(['owners', 'dedupe']);
    expect(keeps(bench, 'owners')).toBe(false);
    expect(keeps(bench, 'covered-sends')).toBe(true);
  });

  it('happy: a process with guarantees off says so at boot, at error level; one without says nothing', () => {
    const lines: string[] = [];
    const logger = createLogger('error', {}, (line) => lines.push(line));
    announceBenchBuild({ RLS_BENCH_BUILD: '1', RLS_BENCH_WITHOUT: [] }, logger);
    expect(lines).toEqual([]);
    announceBenchBuild({ RLS_BENCH_BUILD: '1', RLS_BENCH_WITHOUT: ['owners', 'dedupe'] }, logger);
    const [line] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(line).toMatchObject({ level: 'error', without: ['owners', 'dedupe'] });
    expect(line!.msg).toMatch(/^BENCHMARK BUILD: guarantees turned off/);
  });

  it('happy: a benchmark build without owners lets every claim win and records nothing', async () => {
    const owners = noOwners();
    const claims = [
      { listingId: 'a', position: 'p1' },
      { listingId: 'a', position: 'p2' },
    ];
    expect(await owners.claim(claims)).toEqual(['p1', 'p2']);
    await expect(owners.release(claims)).resolves.toBeUndefined();
  });
});
