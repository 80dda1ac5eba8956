import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { clientIdProblem } from './auth/subject.js';
import { consoleConfig, consoleEnvShape, type ConsoleConfig } from './console/config.js';
import { DEFAULT_MAX_TOKEN_LIFETIME_SECONDS } from './auth/verifier.js';
import { DEFAULT_EVENT_MAX_AGE_HOURS, DEFAULT_NEW_SUBJECTS_PER_MINUTE } from './domain/activity.js';
import { hostProblem, parseNetwork, type AllowedNetworks } from './domain/network.js';
import type { HandlePolicy } from './domain/handles.js';
import { SEASON_ARCHIVE_TIMEOUT_MS } from './domain/seasons.js';

/**
 * Where bearer tokens' keys come from (docs/CONTRACT.md, Authentication). Exactly one source is active.
 * `dev` is the local development identity provider: a key pair kept in DATA_DIR,
 * never available in production.
 */
export type AuthConfig = (
  | { kind: 'oidc'; issuer: string; audience: string[] }
  | { kind: 'jwks'; issuer: string; jwksUrl: string; audience: string[] }
  | { kind: 'publicKey'; issuer: string; publicKey: string; audience: string[] }
  | { kind: 'hs256'; issuer: string; secret: string; audience: string[] }
  | { kind: 'dev'; issuer: string; audience: string[] }
) & {
  /** The longest a token may be valid for, `iat` to `exp` (AUTH_MAX_TOKEN_LIFETIME_SECONDS); unset: the default. */
  maxTokenLifetimeSeconds?: number;
};

export interface Config {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  /** Where GET /metrics listens (its own port, on `host`); undefined: no metrics endpoint. */
  readonly metricsPort: number | undefined;
  /** Where to listen: HOST, else all interfaces in production and 127.0.0.1 elsewhere. */
  readonly host: string;
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  /** Apply pending migrations at start (MIGRATE_ON_START, default true); false: refuse to start while any is pending. */
  readonly migrateOnStart: boolean;
  readonly database: {
    /** How long start-up waits for the database to answer (DATABASE_STARTUP_TIMEOUT_MS; 0: one try). */
    readonly startupTimeoutMs: number;
    readonly poolMax: number;
    readonly statementTimeoutMs: number;
    /** Named statements for the write path (DATABASE_PREPARED_STATEMENTS, default on). */
    readonly preparedStatements: boolean;
    /** A streaming replica for reads (DATABASE_READ_URL; docs/SCALING.md, Read replica). */
    readonly replica: ReplicaConfig | undefined;
  };
  /** `statement_timeout` of the cut of a closed season's standings (docs/SEASONS.md). */
  readonly seasonArchiveTimeoutMs: number;
  /** How long a board's first page is shared by an instance's reads (docs/READS.md); 0 off. */
  readonly firstPageCacheMs: number;
  readonly auth: AuthConfig;
  /** Seconds a verified token is reused without checking its signature again; 0 disables. */
  readonly authTokenCacheSeconds: number;
  /**
   * The clients whose service tokens are trusted (SERVICE_CLIENT_IDS); undefined:
   * any client of the issuer holding the operation's scope.
   */
  readonly serviceClientIds: readonly string[] | undefined;
  /** Users whose state after their last write this instance keeps (src/services/state-cache.ts); 0 disables. */
  readonly userStateCacheSize: number;
  /** How old this instance's copy of the catalog may be before it checks for changes (docs/CATALOG.md). */
  readonly catalogRefreshMs: number;
  /** Events from other services (docs/ACTIVITY.md). */
  readonly activity: {
    /** How far in the past an event's `occurredAt` may lie. */
    readonly maxAgeHours: number;
    /**
     * How many subjects no user has yet one service client's events may
     * create a user for per minute (EVENT_NEW_SUBJECTS_PER_MINUTE); 0: no limit.
     */
    readonly newSubjectsPerMinute: number;
    /** EVENT_UNKNOWN_SUBJECTS: `create` a user for a subject first seen in an event, or `reject` its events. */
    readonly unknownSubjects: 'create' | 'reject';
  };
  /**
   * Requests per minute (0 turns that limit off); with `redisUrl`, counted in
   * Redis under `redisKeyPrefix`, so every instance sharing it shares the limits.
   */
  readonly rateLimit: {
    readonly perUser: number;
    /** Per service client (a client-credentials token's client id). */
    readonly perService: number;
    readonly perIp: number;
    readonly redisUrl: string | undefined;
    readonly redisKeyPrefix: string;
  };
  readonly corsOrigins: readonly string[];
  /** Where clients reach this deployment; the served openapi.json names it in `servers`. */
  readonly publicUrl: string | undefined;
  /** The operator's console's sign-in (src/console/config.ts). */
  readonly console: ConsoleConfig;
  /** Express `trust proxy` setting: how many proxy hops to trust for the client IP. */
  readonly trustProxy: number;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  readonly shutdownTimeoutMs: number;
  /** Live streams and the outbox (docs/LIVE.md). */
  readonly live: LiveConfig;
  /** The endpoint WEBHOOK_URL and WEBHOOK_SECRET configure; undefined when they are not set. */
  readonly webhook: WebhookConfig | undefined;
  /** How long a failing delivery is retried before it is given up (every endpoint). */
  readonly webhookRetryForSeconds: number;
  /**
   * Networks webhook targets may be in besides public unicast space
   * (WEBHOOK_ALLOWED_NETWORKS; docs/OPERATIONS.md, Webhook targets); empty: none.
   */
  readonly webhookAllowedNetworks: AllowedNetworks;
  /** HANDLE_CHANGE_COOLDOWN_DAYS and HANDLE_RESERVE_DAYS (0 turns either off). */
  readonly handles: HandlePolicy;
}

export interface ReplicaConfig {
  readonly url: string;
  /** Reads go to the primary while the replica may be further behind than this. */
  readonly maxLagMs: number;
  /** How long a fan's read of their own data waits for the replica to replay their write. */
  readonly waitMs: number;
  /** How often each instance measures the replica's lag. */
  readonly pollMs: number;
}

export interface LiveConfig {
  /** Where the instance's one LISTEN connection goes (PostgreSQL only); default DATABASE_URL. */
  readonly listenUrl: string | undefined;
  /** Open streams per instance; undefined: as many as the heap holds (src/live/capacity.ts). */
  readonly maxStreams: number | undefined;
  readonly maxStreamsPerUser: number;
  /** Open streams per client address per instance; 0: no limit. */
  readonly maxStreamsPerIp: number;
  /** Events a stream may fall behind before it is dropped. */
  readonly streamQueue: number;
  readonly retentionDays: number;
  readonly retentionPerUser: number;
}

export interface WebhookConfig {
  readonly url: string;
  /** `whsec_<base64>` (Standard Webhooks). */
  readonly secret: string;
  /** How long a failing event is retried before it is given up. */
  readonly retryForSeconds: number;
}

/** Issuer the development identity provider signs with; the service expects it in dev mode. */
export const DEV_ISSUER = 'urn:user-profile-service:dev-idp';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const optionalString = z.preprocess(emptyToUndefined, z.string().trim().optional());
const int = (fallback: number, min: number, max: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().min(min).max(max).default(fallback));
const optionalInt = (min: number, max: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().min(min).max(max).optional());

/** `true` or `false` (any case); unset or empty: `fallback`. */
const flag = (fallback: boolean) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? emptyToUndefined(value.trim().toLowerCase()) : value),
    z
      .enum(['true', 'false'], { error: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((value) => value === 'true'),
  );

const httpUrl = z.preprocess(
  emptyToUndefined,
  z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
);

export const envSchema = z.object({
  NODE_ENV: z.preprocess(
    emptyToUndefined,
    z.enum(['development', 'production', 'test']).default('development'),
  ),
  PORT: int(3000, 0, 65535),
  METRICS_PORT: optionalInt(0, 65535),
  HOST: optionalString,
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string')
      .optional(),
  ),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./.data')),
  ALLOW_EMBEDDED_DATABASE: flag(false),
  MIGRATE_ON_START: flag(true),
  DATABASE_POOL_MAX: int(10, 1, 200),
  DATABASE_STARTUP_TIMEOUT_MS: int(60_000, 0, 3_600_000),
  DATABASE_STATEMENT_TIMEOUT_MS: int(5000, 100, 600_000),
  DATABASE_PREPARED_STATEMENTS: z.preprocess(emptyToUndefined, z.enum(['on', 'off']).default('on')),
  DATABASE_READ_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string')
      .optional(),
  ),
  DATABASE_READ_MAX_LAG_MS: int(1000, 10, 600_000),
  DATABASE_READ_WAIT_MS: int(50, 0, 10_000),
  DATABASE_READ_POLL_MS: int(100, 1, 60_000),
  SEASON_ARCHIVE_TIMEOUT_MS: int(SEASON_ARCHIVE_TIMEOUT_MS, 100, 3_600_000),
  LEADERBOARD_FIRST_PAGE_CACHE_MS: int(1000, 0, 60_000),
  AUTH_ISSUER: optionalString,
  AUTH_JWKS_URL: httpUrl,
  AUTH_PUBLIC_KEY: optionalString,
  AUTH_HS256_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().min(32, 'must be at least 32 characters (RFC 7518 §3.2)').optional(),
  ),
  AUTH_AUDIENCE: optionalString,
  AUTH_TOKEN_CACHE_SECONDS: int(60, 0, 3600),
  AUTH_MAX_TOKEN_LIFETIME_SECONDS: int(DEFAULT_MAX_TOKEN_LIFETIME_SECONDS, 60, 31 * 86_400),
  USER_STATE_CACHE_SIZE: int(2_000, 0, 1_000_000),
  CATALOG_REFRESH_MS: int(2_000, 0, 60_000),
  EVENT_MAX_AGE_HOURS: int(DEFAULT_EVENT_MAX_AGE_HOURS, 1, 24 * 31),
  EVENT_NEW_SUBJECTS_PER_MINUTE: int(DEFAULT_NEW_SUBJECTS_PER_MINUTE, 0, 1_000_000),
  EVENT_UNKNOWN_SUBJECTS: z.preprocess(
    (value) => (typeof value === 'string' ? emptyToUndefined(value.trim().toLowerCase()) : value),
    z.enum(['create', 'reject'], { error: 'must be create or reject' }).default('create'),
  ),
  SERVICE_CLIENT_IDS: optionalString.refine(
    (value) =>
      value === undefined ||
      (list(value).length > 0 &&
        list(value).every((id) => clientIdProblem(id, 'client_id') === undefined)),
    'must be a comma-separated list of client ids (each at most 255 characters, no control characters)',
  ),
  RATE_LIMIT_PER_USER: int(120, 0, 1_000_000),
  RATE_LIMIT_PER_SERVICE: int(6_000, 0, 1_000_000),
  RATE_LIMIT_PER_IP: int(600, 0, 1_000_000),
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  ),
  REDIS_KEY_PREFIX: z.preprocess(
    emptyToUndefined,
    z.string().max(100).default('user-profile-service:ratelimit:'),
  ),
  CORS_ORIGINS: optionalString.refine(
    (value) => list(value).every(isOrigin),
    'must be a comma-separated list of origins such as https://app.example.com (scheme, host, optional port; no path, no "*")',
  ),
  PUBLIC_URL: httpUrl,
  TRUST_PROXY: int(0, 0, 10),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  ),
  SHUTDOWN_TIMEOUT_MS: int(10_000, 0, 600_000),
  DATABASE_LISTEN_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// connection string')
      .optional(),
  ),
  LIVE_MAX_STREAMS: optionalInt(1, 1_000_000),
  LIVE_MAX_STREAMS_PER_USER: int(5, 1, 1000),
  LIVE_MAX_STREAMS_PER_IP: int(100, 0, 1_000_000),
  LIVE_STREAM_QUEUE: int(500, 1, 100_000),
  LIVE_RETENTION_DAYS: int(7, 1, 365),
  LIVE_RETENTION_PER_USER: int(1000, 1, 1_000_000),
  WEBHOOK_URL: httpUrl,
  WEBHOOK_SECRET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine(
        isWebhookSecret,
        'must be whsec_ followed by the base64 of 24 to 64 random bytes (Standard Webhooks)',
      )
      .optional(),
  ),
  WEBHOOK_RETRY_FOR_SECONDS: int(86_400, 1, 30 * 86_400),
  WEBHOOK_ALLOWED_NETWORKS: optionalString.refine(
    (value) => list(value).every((entry) => parseNetwork(entry) !== undefined),
    'must be a comma-separated list of networks (10.0.0.0/8, fd00::/8) or addresses (127.0.0.1)',
  ),
  HANDLE_CHANGE_COOLDOWN_DAYS: int(30, 0, 3650),
  HANDLE_RESERVE_DAYS: int(14, 0, 3650),
  ...consoleEnvShape,
});

function isWebhookSecret(value: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!match?.[1]) return false;
  const bytes = Buffer.from(match[1], 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

function allowedNetworks(env: Env): AllowedNetworks {
  return Object.freeze(list(env.WEBHOOK_ALLOWED_NETWORKS).map((entry) => parseNetwork(entry)!));
}

function webhookConfig(env: Env): WebhookConfig | undefined {
  if (!env.WEBHOOK_URL && !env.WEBHOOK_SECRET) return undefined;
  if (!env.WEBHOOK_URL || !env.WEBHOOK_SECRET) {
    throw new ConfigError(
      `Set WEBHOOK_URL and WEBHOOK_SECRET together; only ${env.WEBHOOK_URL ? 'WEBHOOK_URL' : 'WEBHOOK_SECRET'} is set.`,
    );
  }
  const problem = hostProblem(new URL(env.WEBHOOK_URL).hostname, allowedNetworks(env));
  if (problem) {
    throw new ConfigError(
      `WEBHOOK_URL targets ${problem}: webhooks go to public addresses only. Add its network to ` +
        'WEBHOOK_ALLOWED_NETWORKS (e.g. 10.0.0.0/8) if the receiver is meant to be internal.',
    );
  }
  return Object.freeze({
    url: env.WEBHOOK_URL,
    secret: env.WEBHOOK_SECRET,
    retryForSeconds: env.WEBHOOK_RETRY_FOR_SECONDS,
  });
}

type Env = z.infer<typeof envSchema>;

function replicaConfig(env: Env): ReplicaConfig | undefined {
  if (env.DATABASE_READ_URL === undefined) return undefined;
  if (env.DATABASE_URL === undefined) {
    throw new ConfigError(
      'DATABASE_READ_URL needs DATABASE_URL: a replica is of a PostgreSQL primary, not of the embedded database.',
    );
  }
  // The lag is known to within about a poll: a bound under two polls would turn the replica off.
  if (env.DATABASE_READ_POLL_MS * 2 > env.DATABASE_READ_MAX_LAG_MS) {
    throw new ConfigError(
      `DATABASE_READ_POLL_MS (${env.DATABASE_READ_POLL_MS}) must be at most half of ` +
        `DATABASE_READ_MAX_LAG_MS (${env.DATABASE_READ_MAX_LAG_MS}): the lag is measured once a poll.`,
    );
  }
  return Object.freeze({
    url: env.DATABASE_READ_URL,
    maxLagMs: env.DATABASE_READ_MAX_LAG_MS,
    waitMs: env.DATABASE_READ_WAIT_MS,
    pollMs: env.DATABASE_READ_POLL_MS,
  });
}

/**
 * The outbox must keep an event as long as its webhook may be retried: the
 * age rule of the retention would otherwise delete events still waiting for
 * delivery, and they would be neither delivered nor given up.
 */
function checkRetentionCoversRetries(env: Env): void {
  const retentionSeconds = env.LIVE_RETENTION_DAYS * 86_400;
  if (env.WEBHOOK_RETRY_FOR_SECONDS <= retentionSeconds) return;
  throw new ConfigError(
    `WEBHOOK_RETRY_FOR_SECONDS (${env.WEBHOOK_RETRY_FOR_SECONDS}) must not exceed ` +
      `LIVE_RETENTION_DAYS × 86400 (${env.LIVE_RETENTION_DAYS} × 86400 = ${retentionSeconds}): events ` +
      'would be deleted while their webhook is still being retried. Lower ' +
      'WEBHOOK_RETRY_FOR_SECONDS or raise LIVE_RETENTION_DAYS.',
  );
}

/**
 * The embedded database (PGlite) is one process's files in DATA_DIR: no
 * second instance, no backups, no failover. In production a missing or
 * misspelt DATABASE_URL must not fall back to it silently.
 */
function checkEmbeddedDatabase(env: Env): void {
  if (env.NODE_ENV !== 'production' || env.DATABASE_URL || env.ALLOW_EMBEDDED_DATABASE) return;
  throw new ConfigError(
    'DATABASE_URL is not set and NODE_ENV=production: the service would run on the embedded ' +
      'database (PGlite files in DATA_DIR, one instance only, no backups). Set DATABASE_URL to ' +
      'your PostgreSQL, or ALLOW_EMBEDDED_DATABASE=true to run on the embedded database anyway.',
  );
}

/** Every variable `loadConfig` reads (.env.example lists them all; test/unit/env-example.test.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(envSchema.shape));

/**
 * Prefixes only this service's variables use: an unknown variable starting
 * with one is most likely meant for us (`DATABASE_POOL_SIZE`, `LIVE_MAX_STREAM`).
 */
const OUR_PREFIXES = [
  'ALLOW_EMBEDDED_',
  'AUTH_',
  'CATALOG_',
  'DATABASE_',
  'HANDLE_',
  'LIVE_',
  'METRICS_',
  'MIGRATE_',
  'RATE_LIMIT_',
  'SEASON_ARCHIVE_',
  'SHUTDOWN_',
  'USER_STATE_',
  'WEBHOOK_',
];

export interface UnknownVariable {
  readonly name: string;
  /** The known variable it is closest to, when it is a near miss of one. */
  readonly didYouMean: string | undefined;
}

/**
 * Environment variables that are not ours but look like they were meant to
 * be: a near miss of a known name (`DATABSE_URL`, `LOG_LEVLE`: at most two
 * edits, one for names under eight characters) or one of our prefixes
 * (`WEBHOOK_SECRETS`). The server warns about them once at start; they are
 * not an error, because the environment is shared with other software.
 */
export function unknownVariables(
  env: NodeJS.ProcessEnv,
  known: readonly string[] = CONFIG_VARIABLES,
): UnknownVariable[] {
  const knownSet = new Set(known);
  const found: UnknownVariable[] = [];
  for (const name of Object.keys(env).sort()) {
    if (knownSet.has(name)) continue;
    const upper = name.toUpperCase();
    let didYouMean: string | undefined;
    let best = Infinity;
    for (const candidate of known) {
      const distance = editDistance(upper, candidate);
      const allowed = candidate.length < 8 ? 1 : 2;
      if (distance <= allowed && distance < best) {
        best = distance;
        didYouMean = candidate;
      }
    }
    if (didYouMean !== undefined || OUR_PREFIXES.some((prefix) => upper.startsWith(prefix))) {
      found.push({ name, didYouMean });
    }
  }
  return found;
}

/**
 * Optimal string alignment distance (Levenshtein with adjacent
 * transpositions): `DATABSE_URL` is one edit from `DATABASE_URL`.
 */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = value;
    }
  }
  return rows[a.length]![b.length]!;
}

/** An exact browser origin: http(s), a host, an optional port, nothing else. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && url.origin === value;
  } catch {
    return false;
  }
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A URL whose host is this machine: `localhost` or a loopback IP literal. */
function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/**
 * Production refuses to run with settings that fail open: no expected
 * audience (any token of the issuer, for any of its clients, would pass), or
 * keys fetched over plain http from another machine (anyone on the path could
 * swap them).
 */
function productionProblems(env: Env): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  if (list(env.AUTH_AUDIENCE).length === 0) {
    problems.push(
      'AUTH_AUDIENCE is required when NODE_ENV=production: set it to the "aud" value the ' +
        'identity provider puts in tokens for this API, so tokens minted for other clients ' +
        'of the same provider are refused',
    );
  }
  const urls = { AUTH_ISSUER: env.AUTH_ISSUER, AUTH_JWKS_URL: env.AUTH_JWKS_URL };
  for (const [name, value] of Object.entries(urls)) {
    const url = value !== undefined && URL.canParse(value) ? new URL(value) : undefined;
    if (url?.protocol === 'http:' && !isLoopbackUrl(url)) {
      problems.push(
        `${name} must be an https:// URL when NODE_ENV=production (plain http is allowed ` +
          `only for localhost and loopback addresses); got ${value}`,
      );
    }
  }
  return problems;
}

function authConfig(env: Env): AuthConfig {
  const audience = list(env.AUTH_AUDIENCE);
  const sources = [
    env.AUTH_JWKS_URL && 'AUTH_JWKS_URL',
    env.AUTH_PUBLIC_KEY && 'AUTH_PUBLIC_KEY',
    env.AUTH_HS256_SECRET && 'AUTH_HS256_SECRET',
  ].filter((name): name is string => Boolean(name));

  if (sources.length > 1) {
    throw new ConfigError(
      `Set only one key source for tokens; found ${sources.join(' and ')}. ` +
        'Use AUTH_JWKS_URL, AUTH_PUBLIC_KEY or AUTH_HS256_SECRET (or AUTH_ISSUER alone for OIDC discovery).',
    );
  }
  const issuer = env.AUTH_ISSUER;
  if (!issuer) {
    if (sources.length === 1 || audience.length > 0) {
      throw new ConfigError(
        `AUTH_ISSUER is required with ${sources[0] ?? 'AUTH_AUDIENCE'}: every token's "iss" is checked ` +
          'and users are keyed by issuer and subject.',
      );
    }
    if (env.NODE_ENV === 'production') {
      throw new ConfigError(
        'No identity provider is configured and NODE_ENV=production, so the development identity ' +
          'provider is off. Set AUTH_ISSUER (OIDC discovery), or AUTH_ISSUER with one of ' +
          'AUTH_JWKS_URL, AUTH_PUBLIC_KEY or AUTH_HS256_SECRET.',
      );
    }
    return { kind: 'dev', issuer: DEV_ISSUER, audience: [] };
  }
  const production = productionProblems(env);
  if (production.length > 0) throw new ConfigError(`${production.join('. ')}.`);
  if (env.AUTH_JWKS_URL) return { kind: 'jwks', issuer, jwksUrl: env.AUTH_JWKS_URL, audience };
  if (env.AUTH_PUBLIC_KEY)
    return { kind: 'publicKey', issuer, publicKey: env.AUTH_PUBLIC_KEY, audience };
  if (env.AUTH_HS256_SECRET)
    return { kind: 'hs256', issuer, secret: env.AUTH_HS256_SECRET, audience };
  if (!/^https?:\/\//.test(issuer)) {
    throw new ConfigError(
      `AUTH_ISSUER "${issuer}" is not an http(s) URL, so its OIDC discovery document cannot be fetched. ` +
        'Set AUTH_JWKS_URL, AUTH_PUBLIC_KEY or AUTH_HS256_SECRET as well.',
    );
  }
  return { kind: 'oidc', issuer, audience };
}

/**
 * For entry points (server, scripts): the configuration, or its problems on
 * stderr and exit code 1.
 */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Reads and validates the environment once. Throws `ConfigError` with a
 * one-paragraph message naming every bad variable; the entry point prints it
 * and exits non-zero.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')} ${issue.message}`)
      .join('; ');
    throw new ConfigError(
      `Invalid configuration: ${problems}. See the configuration table in docs/OPERATIONS.md.`,
    );
  }
  const e = parsed.data;
  checkRetentionCoversRetries(e);
  const auth = Object.freeze({
    ...authConfig(e),
    maxTokenLifetimeSeconds: e.AUTH_MAX_TOKEN_LIFETIME_SECONDS,
  });
  checkEmbeddedDatabase(e);
  return Object.freeze({
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    metricsPort: e.METRICS_PORT,
    host: e.HOST ?? (e.NODE_ENV === 'production' ? '::' : '127.0.0.1'),
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(e.DATA_DIR),
    migrateOnStart: e.MIGRATE_ON_START,
    database: Object.freeze({
      startupTimeoutMs: e.DATABASE_STARTUP_TIMEOUT_MS,
      poolMax: e.DATABASE_POOL_MAX,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      preparedStatements: e.DATABASE_PREPARED_STATEMENTS === 'on',
      replica: replicaConfig(e),
    }),
    seasonArchiveTimeoutMs: e.SEASON_ARCHIVE_TIMEOUT_MS,
    firstPageCacheMs: e.LEADERBOARD_FIRST_PAGE_CACHE_MS,
    auth,
    authTokenCacheSeconds: e.AUTH_TOKEN_CACHE_SECONDS,
    serviceClientIds:
      e.SERVICE_CLIENT_IDS === undefined ? undefined : Object.freeze(list(e.SERVICE_CLIENT_IDS)),
    userStateCacheSize: e.USER_STATE_CACHE_SIZE,
    catalogRefreshMs: e.CATALOG_REFRESH_MS,
    activity: Object.freeze({
      maxAgeHours: e.EVENT_MAX_AGE_HOURS,
      newSubjectsPerMinute: e.EVENT_NEW_SUBJECTS_PER_MINUTE,
      unknownSubjects: e.EVENT_UNKNOWN_SUBJECTS,
    }),
    rateLimit: Object.freeze({
      perUser: e.RATE_LIMIT_PER_USER,
      perService: e.RATE_LIMIT_PER_SERVICE,
      perIp: e.RATE_LIMIT_PER_IP,
      redisUrl: e.REDIS_URL,
      redisKeyPrefix: e.REDIS_KEY_PREFIX,
    }),
    corsOrigins: Object.freeze(list(e.CORS_ORIGINS)),
    publicUrl: e.PUBLIC_URL?.replace(/\/+$/, ''),
    console: consoleConfig(e, auth.kind === 'dev'),
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    live: Object.freeze({
      listenUrl: e.DATABASE_LISTEN_URL,
      maxStreams: e.LIVE_MAX_STREAMS,
      maxStreamsPerUser: e.LIVE_MAX_STREAMS_PER_USER,
      maxStreamsPerIp: e.LIVE_MAX_STREAMS_PER_IP,
      streamQueue: e.LIVE_STREAM_QUEUE,
      retentionDays: e.LIVE_RETENTION_DAYS,
      retentionPerUser: e.LIVE_RETENTION_PER_USER,
    }),
    webhook: webhookConfig(e),
    webhookRetryForSeconds: e.WEBHOOK_RETRY_FOR_SECONDS,
    webhookAllowedNetworks: allowedNetworks(e),
    handles: Object.freeze({
      cooldownDays: e.HANDLE_CHANGE_COOLDOWN_DAYS,
      reserveDays: e.HANDLE_RESERVE_DAYS,
    }),
  });
}
