// Environment parsing shared by every process: each process declares one zod schema, parsed once
// at boot; a bad or missing variable stops the process with the variable named.
import { z } from 'zod';
import { DEFAULT_USD_TZS } from './domain/fx.ts';
import { localStackDefaults } from './local-stack-defaults.ts';

export class EnvError extends Error {}

/**
 * Parses `env` with `schema`. Outside production, connection URLs the caller did not set default to
 * the local stack that `npm start` runs (local-stack-defaults.ts); with NODE_ENV=production an
 * unset KAFKA_BROKERS, CLICKHOUSE_URL or REDIS_URL is an error naming the variable.
 */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const defaults = env.NODE_ENV === 'production' ? {} : localStackDefaults(env);
  const input: NodeJS.ProcessEnv = { ...defaults, ...definedOnly(env) };
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`,
  );
  throw new EnvError(`Invalid environment configuration:\n${problems.join('\n')}`);
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]));
}

/** The message of a variable that is missing (production sets every connection URL itself). */
const required = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? `is required in production (${what})` : undefined;

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
/** A comma-separated list, items trimmed, empty items dropped; unset is the empty list. */
export const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  );

/** Building blocks that several process schemas share. */
export const envFields = {
  port,
  positiveInt,
  kafkaBrokers: z
    .string({ error: required('comma-separated host:port list') })
    .min(1)
    .transform((value) =>
      value
        .split(',')
        .map((broker) => broker.trim())
        .filter(Boolean),
    ),
  clickhouseUrl: z.url({ error: required('http(s):// URL of the ClickHouse server') }),
  clickhouseDatabase: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier')
    .default('rls'),
  redisUrl: z
    .string({ error: required('redis:// or rediss:// URL') })
    .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL'),
  /** host:port,host:port,… of Redis Cluster nodes; unset or empty for a single node (REDIS_URL). */
  redisClusterNodes: commaList.pipe(
    z.array(z.string().regex(/^[^:\s]+:\d{1,5}$/, 'each node must be host:port')),
  ),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** A worker's name in health reports and client ids (STREAM_WORKER_ID, IMAGES_WORKER_ID). */
  workerId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits, dot, dash, underscore; at most 64')
    .optional(),
  topicPrefix: z
    .string()
    .regex(/^[a-z0-9._-]*$/, 'lowercase letters, digits, dot, dash, underscore')
    .default(''),
  /** Comma-separated http(s) URLs (CLICKHOUSE_NODES). */
  urlList: commaList.pipe(
    z.array(z.url({ protocol: /^https?$/, error: 'each node must be an http(s):// URL' })),
  ),
  cidrList: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((cidr) => cidr.trim())
        .filter(Boolean),
    ),
};

/**
 * Every variable that more than one program reads, declared once (docs/configuration.md, "Variables"). Each
 * program's schema picks the ones it reads from here and adds its own; the picks below are the
 * groups several programs share.
 */
export const sharedEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: envFields.logLevel,
  KAFKA_BROKERS: envFields.kafkaBrokers,
  KAFKA_TOPIC_PREFIX: envFields.topicPrefix,
  CLICKHOUSE_URL: envFields.clickhouseUrl,
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  CLICKHOUSE_DATABASE: envFields.clickhouseDatabase,
  // Every server of a sharded ClickHouse (HTTP URLs, comma-separated, shard order); empty: the one
  // server of CLICKHOUSE_URL. /healthz names a shard that is down; migrations go to each.
  CLICKHOUSE_NODES: envFields.urlList,
  REDIS_URL: envFields.redisUrl,
  // A Redis Cluster's nodes (host:port, comma-separated); empty: the one server of REDIS_URL. With
  // nodes, REDIS_URL gives only the credentials and TLS (rediss://) of the nodes.
  REDIS_CLUSTER_NODES: envFields.redisClusterNodes,
  // Every key begins with it, then its own hash tag (common/redis-keys/tags.ts): no braces here,
  // or a tag in the prefix would put every key in one slot.
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[^{}]*$/, 'must not contain { or }: each key carries its own hash tag after the prefix')
    .default('rls:'),
  // How many tagged parts each family written by every account is split into, so that on a Redis
  // Cluster no one master holds all of it (common/redis-keys/tags.ts); readers visit every part.
  REDIS_GLOBAL_PARTS: positiveInt.max(1024).default(16),
  // Health reports Redis degraded (503, reason given) above this share of its maxmemory: with
  // noeviction every write of every account fails at the ceiling, so operators need warning first.
  REDIS_MEMORY_DEGRADED_RATIO: z.coerce.number().gt(0).lte(1).default(0.9),
  // Outbound calls (webhooks, image checks) refuse non-public addresses except these CIDRs; empty in production.
  OUTBOUND_ALLOW_CIDRS: envFields.cidrList,
  // The API's HTTP port. Unset: each API process's own default (gateway 8080, ingest 8081, analytics
  // 8082), and outbound calls refuse all three (outbound/service-ports.ts).
  PORT: port.optional(),
  // HTTPS beside HTTP (http/tls.ts): both files or neither; TLS_PORT unset: PORT + 363.
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  TLS_PORT: port.optional(),
  // Further ports of the local stack that outbound calls never reach; in production usually absent.
  CLICKHOUSE_TCP_PORT: port.optional(),
  KAFKA_CONTROLLER_PORT: port.optional(),
  // Every port the local stack listens on (infra/local/settings.mjs sets it from its own settings):
  // outbound calls never reach them, whatever OUTBOUND_ALLOW_CIDRS opens without a port range.
  OUTBOUND_PROTECTED_PORTS: commaList.pipe(
    z.array(
      z
        .string()
        .regex(/^\d{1,5}$/, 'each must be a port, 1-65535')
        .transform(Number)
        .pipe(z.number().int().min(1).max(65535)),
    ),
  ),
  // How long an HTTP listener waits for a client's headers and whole request (http/timeouts.ts).
  HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(30_000),
  // Shows health details to whoever presents it (X-Operator-Token); unset: to nobody.
  OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // TZS per USD: the stream stores price_tzs with it, the analytics answers in USD with it.
  FX_USD_TZS: z.coerce.number().positive().finite().default(DEFAULT_USD_TZS),
  // Consumer group names: <prefix>.<consumer> (the stream workers' and the image processes').
  STREAM_GROUP_PREFIX: envFields.topicPrefix.default('rls'),
});
export type SharedEnv = z.infer<typeof sharedEnvSchema>;

/** Variables every service process reads: its clients (common/platform.ts) and their health. */
export const baseEnvSchema = sharedEnvSchema.pick({
  NODE_ENV: true,
  LOG_LEVEL: true,
  KAFKA_BROKERS: true,
  KAFKA_TOPIC_PREFIX: true,
  CLICKHOUSE_URL: true,
  CLICKHOUSE_USER: true,
  CLICKHOUSE_PASSWORD: true,
  CLICKHOUSE_DATABASE: true,
  CLICKHOUSE_NODES: true,
  REDIS_URL: true,
  REDIS_CLUSTER_NODES: true,
  REDIS_KEY_PREFIX: true,
  REDIS_GLOBAL_PARTS: true,
  REDIS_MEMORY_DEGRADED_RATIO: true,
  OUTBOUND_ALLOW_CIDRS: true,
});
export type BaseEnv = z.infer<typeof baseEnvSchema>;

/** What the outbound policy of a process that calls out reads (outbound/service-ports.ts). */
export const outboundEnvSchema = sharedEnvSchema.pick({
  OUTBOUND_ALLOW_CIDRS: true,
  KAFKA_BROKERS: true,
  CLICKHOUSE_URL: true,
  REDIS_URL: true,
  PORT: true,
  TLS_PORT: true,
  TLS_CERT_FILE: true,
  CLICKHOUSE_TCP_PORT: true,
  KAFKA_CONTROLLER_PORT: true,
  CLICKHOUSE_NODES: true,
  REDIS_CLUSTER_NODES: true,
  OUTBOUND_PROTECTED_PORTS: true,
});
export type OutboundEnv = z.infer<typeof outboundEnvSchema>;

/** What every HTTP listener reads: API processes and the workers' ops listeners (http/app.ts). */
export const listenerEnvSchema = sharedEnvSchema.pick({
  HTTP_HEADERS_TIMEOUT_MS: true,
  HTTP_REQUEST_TIMEOUT_MS: true,
  OPERATOR_TOKEN: true,
});
export type ListenerEnv = z.infer<typeof listenerEnvSchema>;

/** What an API process's HTTPS listener reads (http/tls.ts). */
export const tlsEnvSchema = sharedEnvSchema.pick({ TLS_CERT_FILE: true, TLS_KEY_FILE: true, TLS_PORT: true });
export type TlsEnv = z.infer<typeof tlsEnvSchema>;

/**
 * What both worker processes read besides the base (stream workers and image processes): their
 * outbound calls, their ops listener, their consumer groups. Each adds its own and
 * `superRefine(checkListenerEnv)`.
 */
export const workerEnvSchema = baseEnvSchema
  .extend(outboundEnvSchema.shape)
  .extend(listenerEnvSchema.shape)
  .extend(sharedEnvSchema.pick({ STREAM_GROUP_PREFIX: true }).shape);

/**
 * The check across the listener's variables, for the `superRefine` of a process schema that picks
 * them (a refinement does not survive `extend` of its fields).
 */
export function checkListenerEnv(env: ListenerEnv, ctx: z.RefinementCtx): void {
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS)
    ctx.addIssue({
      code: 'custom',
      path: ['HTTP_HEADERS_TIMEOUT_MS'],
      message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
    });
}

/** The check across the TLS variables, for the `superRefine` of an API process's schema. */
export function checkTlsEnv(env: TlsEnv, ctx: z.RefinementCtx): void {
  if (!!env.TLS_CERT_FILE !== !!env.TLS_KEY_FILE)
    ctx.addIssue({
      code: 'custom',
      path: [env.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'],
      message: 'TLS_CERT_FILE and TLS_KEY_FILE must be set together',
    });
}
