// Settings of one local stack instance, read from the environment once.
// Dependency-free on purpose: this runs before `npm ci`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function port(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    throw new Error(`${name} must be a TCP port (1-65535), got "${raw}"`);
  }
  return value;
}

function positiveInt(env, name, fallback) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/**
 * Ports default to a base (18000 for `npm start`, 28000 for `npm test`) plus a fixed offset per
 * component, so a second instance only needs RLS_PORT_BASE (or the individual *_PORT variables).
 */
export function readSettings(env = process.env, { profile = 'start' } = {}) {
  const base = port(env, 'RLS_PORT_BASE', profile === 'test' ? 28000 : 18000);
  const defaultState = profile === 'test' ? '.local/test' : '.local';
  const stateDir = path.resolve(repoRoot, env.RLS_STATE_DIR || defaultState);
  return {
    profile,
    stateDir,
    // Downloads (Maven jars) are shared by all instances of one checkout.
    cacheDir: path.resolve(repoRoot, env.RLS_CACHE_DIR || '.local/cache'),
    logDir: path.join(stateDir, 'logs'),
    port: port(env, 'PORT', profile === 'test' ? base + 80 : 8080),
    kafka: {
      external: env.KAFKA_BROKERS || '',
      port: port(env, 'KAFKA_PORT', base + 92),
      controllerPort: port(env, 'KAFKA_CONTROLLER_PORT', base + 93),
      version: env.KAFKA_VERSION || '4.1.1',
      heapMb: Number(env.KAFKA_HEAP_MB || 384),
    },
    clickhouse: {
      external: env.CLICKHOUSE_URL || '',
      httpPort: port(env, 'CLICKHOUSE_HTTP_PORT', base + 123),
      tcpPort: port(env, 'CLICKHOUSE_TCP_PORT', base + 900),
    },
    redis: {
      external: env.REDIS_URL || '',
      port: port(env, 'REDIS_PORT', base + 379),
      maxmemoryMb: positiveInt(env, 'REDIS_MAXMEMORY_MB', 4096),
    },
  };
}

/** Connection URLs of the stack, as the services read them. */
export function serviceEnv(settings) {
  return {
    KAFKA_BROKERS: settings.kafka.external || `127.0.0.1:${settings.kafka.port}`,
    CLICKHOUSE_URL: settings.clickhouse.external || `http://127.0.0.1:${settings.clickhouse.httpPort}`,
    REDIS_URL: settings.redis.external || `redis://127.0.0.1:${settings.redis.port}`,
    PORT: String(settings.port),
    RLS_STATE_DIR: settings.stateDir,
  };
}
