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
import {
  CONFIG_VARIABLES,
  envSchema,
  isOrigin,
  list,
  isLoopbackUrl,
  type Env,
} from './config-env.js';
import type { AuthConfig, Config, ReplicaConfig, WebhookConfig } from './config-types.js';

export type * from './config-types.js';
export { CONFIG_VARIABLES, envSchema } from './config-env.js';
export { unknownVariables, type UnknownVariable } from './config-unknown.js';

/** Issuer the development identity provider signs with; the service expects it in dev mode. */
export const DEV_ISSUER = 'urn:user-profile-service:dev-idp';

export class ConfigError extends Error {
  override name = 'ConfigError';
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
