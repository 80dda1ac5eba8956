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
