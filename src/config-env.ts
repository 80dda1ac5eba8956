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

export type Env = z.infer<typeof envSchema>;

/** Every variable `loadConfig` reads (.env.example lists them all; test/unit/env-example.test.ts). */
export const CONFIG_VARIABLES: readonly string[] = Object.freeze(Object.keys(envSchema.shape));

/** An exact browser origin: http(s), a host, an optional port, nothing else. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && url.origin === value;
  } catch {
    return false;
  }
}

export function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** A URL whose host is this machine: `localhost` or a loopback IP literal. */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

export function isWebhookSecret(value: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  if (!match?.[1]) return false;
  const bytes = Buffer.from(match[1], 'base64').length;
  return bytes >= 24 && bytes <= 64;
}
