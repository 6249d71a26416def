// Each process parses its whole environment once at boot (common/run.ts): the settings its modules
// used to read later (HTTP timeouts, TLS, the operator token, the job schedules, LOG_LEVEL) are in
// its schema, so a bad value stops the process at start with the variable named.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyticsEnvSchema } from '../../analytics-api/env.ts';
import { EnvError, parseEnv } from '../../common/env.ts';
import { gatewayEnvSchema } from '../../gateway/env.ts';
import { ingestEnvSchema } from '../../ingest/env.ts';
import { streamEnvSchema } from '../../stream/env.ts';
import { imagesProcessEnvSchema } from '../../stream/images/process-env.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const production = {
  NODE_ENV: 'production',
  KAFKA_BROKERS: 'kafka-1:9092',
  CLICKHOUSE_URL: 'https://clickhouse.internal:8443',
  REDIS_URL: 'rediss://redis.internal:6380',
};
const apiSchemas = { gateway: gatewayEnvSchema, ingest: ingestEnvSchema, analytics: analyticsEnvSchema };
const listenerSchemas = { ...apiSchemas, stream: streamEnvSchema, images: imagesProcessEnvSchema };

function refusal(schema: Parameters<typeof parseEnv>[0], env: Record<string, string>): string {
  try {
    parseEnv(schema, { ...production, ...env });
  } catch (error) {
    expect(error).toBeInstanceOf(EnvError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('process environments', () => {
  it('happy: every process gets its defaults from one parse', () => {
    for (const [name, schema] of Object.entries(listenerSchemas)) {
      const env = parseEnv(schema, production);
      expect(env.HTTP_HEADERS_TIMEOUT_MS, name).toBe(10_000);
      expect(env.REDIS_KEY_PREFIX, name).toBe('rls:');
      expect(env.LOG_LEVEL, name).toBe('info');
    }
    const stream = parseEnv(streamEnvSchema, production);
    expect(stream.ESTIMATE_BACKTEST_CRON).toBe('30 2 * * *');
    expect(stream.PRICE_SUMMARIES_CRON).toBe('*/10 * * * * *');
    expect(stream.WEBHOOK_CONCURRENCY).toBe(16);
    expect(
      parseEnv(streamEnvSchema, { ...production, ESTIMATE_BACKTEST_CRON: 'off' }).ESTIMATE_BACKTEST_CRON,
    ).toBe('off');
    expect(parseEnv(gatewayEnvSchema, { ...production, FX_USD_TZS: '2600' }).FX_USD_TZS).toBe(2600);
  });

  it('error: a bad value of a variable modules used to read later is refused, named', () => {
    for (const [name, schema] of Object.entries(listenerSchemas)) {
      expect(refusal(schema, { OPERATOR_TOKEN: 'short' }), name).toMatch(
        /OPERATOR_TOKEN: must be at least 16/,
      );
      expect(refusal(schema, { HTTP_HEADERS_TIMEOUT_MS: '60000' }), name).toMatch(
        /HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
      );
      expect(refusal(schema, { LOG_LEVEL: 'verbose' }), name).toMatch(/LOG_LEVEL/);
    }
    for (const [name, schema] of Object.entries(apiSchemas)) {
      expect(refusal(schema, { TLS_CERT_FILE: '/etc/tls/cert.pem' }), name).toMatch(
        /TLS_KEY_FILE: TLS_CERT_FILE and TLS_KEY_FILE must be set together/,
      );
    }
    for (const variable of ['USAGE_ROLLUP_CRON', 'KEY_AUDIT_FLUSH_CRON', 'LIFECYCLE_EXPIRY_CRON']) {
      expect(refusal(streamEnvSchema, { [variable]: 'every minute' })).toMatch(
        new RegExp(`${variable}: must be a cron expression`),
      );
    }
    for (const variable of ['ESTIMATE_BACKTEST_CRON', 'PRICE_SUMMARIES_CRON']) {
      expect(refusal(streamEnvSchema, { [variable]: 'nightly' })).toMatch(
        new RegExp(`${variable}: must be a cron expression or off`),
      );
    }
    expect(refusal(streamEnvSchema, { WEBHOOK_RETRY_SCHEDULE_MS: '0,soon' })).toMatch(
      /WEBHOOK_RETRY_SCHEDULE_MS/,
    );
    expect(refusal(streamEnvSchema, { STREAM_WORKER_ID: 'a worker' })).toMatch(/STREAM_WORKER_ID/);
    expect(refusal(imagesProcessEnvSchema, { IMAGES_METRICS_PORT: '70000' })).toMatch(/IMAGES_METRICS_PORT/);
  });

  it('error: the stream worker refuses a bad schedule at boot, before it connects to anything', () => {
    const result = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['stream/main.ts'], {
      cwd: root,
      env: { ...process.env, ...production, KEY_AUDIT_FLUSH_CRON: 'every minute' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^stream: Invalid environment configuration:\n {2}KEY_AUDIT_FLUSH_CRON: must be a cron expression/,
    );
  });
});
