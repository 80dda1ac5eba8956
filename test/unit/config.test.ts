import { describe, expect, it } from 'vitest';
import {
  CONFIG_VARIABLES,
  ConfigError,
  DEV_ISSUER,
  loadConfig,
  unknownVariables,
} from '../../src/config.js';

describe('loadConfig', () => {
  it('defaults to the development identity provider and embedded database', () => {
    const config = loadConfig({});
    expect(config.auth).toEqual({
      kind: 'dev',
      issuer: DEV_ISSUER,
      audience: [],
      maxTokenLifetimeSeconds: 86_400,
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.port).toBe(3000);
    expect(config.dataDir).toMatch(/\.data$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes PUBLIC_URL as an http(s) URL without a trailing slash', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ PUBLIC_URL: 'https://api.fans.example/' }).publicUrl).toBe(
      'https://api.fans.example',
    );
    expect(() => loadConfig({ PUBLIC_URL: 'api.fans.example' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ PUBLIC_URL: 'ftp://api.fans.example' })).toThrow(/PUBLIC_URL/);
  });

  it('picks the key source from the variables', () => {
    expect(loadConfig({ AUTH_ISSUER: 'https://idp.example' }).auth.kind).toBe('oidc');
    expect(
      loadConfig({ AUTH_ISSUER: 'https://idp.example', AUTH_JWKS_URL: 'https://idp.example/jwks' })
        .auth.kind,
    ).toBe('jwks');
    expect(loadConfig({ AUTH_ISSUER: 'x', AUTH_PUBLIC_KEY: '{"kty":"EC"}' }).auth.kind).toBe(
      'publicKey',
    );
    const hs = loadConfig({
      AUTH_ISSUER: 'x',
      AUTH_HS256_SECRET: 's'.repeat(32),
      AUTH_AUDIENCE: 'a, b',
    });
    expect(hs.auth).toMatchObject({ kind: 'hs256', audience: ['a', 'b'] });
  });

  it('reads REDIS_URL and REDIS_KEY_PREFIX for the rate limits', () => {
    expect(loadConfig({}).rateLimit).toMatchObject({
      redisUrl: undefined,
      redisKeyPrefix: 'user-profile-service:ratelimit:',
    });
    expect(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379/2', REDIS_KEY_PREFIX: 'a:' }).rateLimit,
    ).toMatchObject({ redisUrl: 'redis://127.0.0.1:6379/2', redisKeyPrefix: 'a:' });
  });

  it('trusts any client holding a service scope unless SERVICE_CLIENT_IDS lists them', () => {
    expect(loadConfig({}).serviceClientIds).toBeUndefined();
    expect(loadConfig({ SERVICE_CLIENT_IDS: '  ' }).serviceClientIds).toBeUndefined();
    const listed = loadConfig({ SERVICE_CLIENT_IDS: ' checkin-service, quiz@clients ,x' });
    expect(listed.serviceClientIds).toEqual(['checkin-service', 'quiz@clients', 'x']);
    expect(Object.isFrozen(listed.serviceClientIds)).toBe(true);
  });

  it.each([
    ['only commas', ',, ,'],
    ['a control character', 'checkin\u0000service'],
    ['a lone surrogate', 'checkin\uD800'],
    ['a client id over 255 characters', 'c'.repeat(256)],
  ])('refuses SERVICE_CLIENT_IDS with %s, naming the variable', (_label, value) => {
    expect(() => loadConfig({ SERVICE_CLIENT_IDS: value })).toThrow(
      /SERVICE_CLIENT_IDS must be a comma-separated list of client ids/,
    );
  });

  it('limits each service client to 6,000 requests a minute unless RATE_LIMIT_PER_SERVICE says otherwise', () => {
    expect(loadConfig({}).rateLimit).toMatchObject({ perUser: 120, perService: 6_000 });
    expect(loadConfig({ RATE_LIMIT_PER_SERVICE: '0' }).rateLimit.perService).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_PER_SERVICE: '-1' })).toThrow(/RATE_LIMIT_PER_SERVICE/);
    expect(() => loadConfig({ RATE_LIMIT_PER_SERVICE: 'lots' })).toThrow(/RATE_LIMIT_PER_SERVICE/);
  });

  it('takes events at most a day back, 600 new fans a minute per client, creating unknown subjects, unless told otherwise', () => {
    expect(loadConfig({}).activity).toEqual({
      maxAgeHours: 24,
      newSubjectsPerMinute: 600,
      unknownSubjects: 'create',
    });
    expect(
      loadConfig({
        EVENT_MAX_AGE_HOURS: '72',
        EVENT_NEW_SUBJECTS_PER_MINUTE: '0',
        EVENT_UNKNOWN_SUBJECTS: 'Reject',
      }).activity,
    ).toEqual({ maxAgeHours: 72, newSubjectsPerMinute: 0, unknownSubjects: 'reject' });
    for (const [name, bad] of [
      ['EVENT_MAX_AGE_HOURS', '0'],
      ['EVENT_MAX_AGE_HOURS', '745'],
      ['EVENT_NEW_SUBJECTS_PER_MINUTE', '-1'],
      ['EVENT_UNKNOWN_SUBJECTS', 'ignore'],
    ] as const) {
      expect(() => loadConfig({ [name]: bad })).toThrow(new RegExp(name));
    }
  });

  it('limits tokens to 24 h from iat to exp unless AUTH_MAX_TOKEN_LIFETIME_SECONDS says otherwise', () => {
    expect(loadConfig({}).auth.maxTokenLifetimeSeconds).toBe(86_400);
    expect(
      loadConfig({ AUTH_MAX_TOKEN_LIFETIME_SECONDS: '3600' }).auth.maxTokenLifetimeSeconds,
    ).toBe(3600);
    for (const bad of ['59', '2678401', 'a day']) {
      expect(() => loadConfig({ AUTH_MAX_TOKEN_LIFETIME_SECONDS: bad })).toThrow(
        /AUTH_MAX_TOKEN_LIFETIME_SECONDS/,
      );
    }
  });

  it("names the write path's statements unless DATABASE_PREPARED_STATEMENTS is off", () => {
    expect(loadConfig({}).database.preparedStatements).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'on' }).database.preparedStatements).toBe(
      true,
    );
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'off' }).database.preparedStatements).toBe(
      false,
    );
  });

  it('reads on a replica only with DATABASE_READ_URL and DATABASE_URL, with bounds a poll can measure', () => {
    expect(loadConfig({}).database.replica).toBeUndefined();
    const primary = 'postgres://app@db:5432/profiles';
    const url = 'postgres://app@replica:5432/profiles';
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: url }).database.replica).toEqual({
      url,
      maxLagMs: 1000,
      waitMs: 50,
      pollMs: 100,
    });
    expect(() => loadConfig({ DATABASE_READ_URL: url })).toThrow(
      /DATABASE_READ_URL needs DATABASE_URL/,
    );
    expect(() => loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'replica:5432' })).toThrow(
      /DATABASE_READ_URL/,
    );
    expect(() =>
      loadConfig({
        DATABASE_URL: primary,
        DATABASE_READ_URL: url,
        DATABASE_READ_MAX_LAG_MS: '150',
        DATABASE_READ_POLL_MS: '100',
      }),
    ).toThrow(
      /DATABASE_READ_POLL_MS \(100\) must be at most half of DATABASE_READ_MAX_LAG_MS \(150\)/,
    );
  });

  it('keeps the state of 2,000 users after their writes unless USER_STATE_CACHE_SIZE says otherwise', () => {
    expect(loadConfig({}).userStateCacheSize).toBe(2_000);
    expect(loadConfig({ USER_STATE_CACHE_SIZE: '0' }).userStateCacheSize).toBe(0);
    expect(loadConfig({ USER_STATE_CACHE_SIZE: '500' }).userStateCacheSize).toBe(500);
  });

  it.each([
    [{ USER_STATE_CACHE_SIZE: '-1' }, /USER_STATE_CACHE_SIZE/],
    [{ USER_STATE_CACHE_SIZE: 'many' }, /USER_STATE_CACHE_SIZE/],
    [{ DATABASE_PREPARED_STATEMENTS: 'yes' }, /DATABASE_PREPARED_STATEMENTS/],
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ RATE_LIMIT_PER_USER: '-1' }, /RATE_LIMIT_PER_USER/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV/],
    [{ AUTH_ISSUER: 'x', AUTH_HS256_SECRET: 'short' }, /AUTH_HS256_SECRET/],
    [{ AUTH_JWKS_URL: 'https://idp/jwks' }, /AUTH_ISSUER is required/],
    [
      { AUTH_ISSUER: 'x', AUTH_JWKS_URL: 'https://a/j', AUTH_HS256_SECRET: 's'.repeat(32) },
      /only one key source/,
    ],
    [{ AUTH_ISSUER: 'not-a-url' }, /OIDC discovery/],
    [{ NODE_ENV: 'production' }, /NODE_ENV=production/],
    [{ NODE_ENV: 'production', AUTH_ISSUER: 'https://idp.example' }, /AUTH_AUDIENCE is required/],
    [
      { NODE_ENV: 'production', AUTH_ISSUER: 'https://idp.example', AUTH_AUDIENCE: ' , ' },
      /AUTH_AUDIENCE is required/,
    ],
    [
      { NODE_ENV: 'production', AUTH_ISSUER: 'http://idp.example', AUTH_AUDIENCE: 'api' },
      /AUTH_ISSUER must be an https:\/\/ URL/,
    ],
    [
      {
        NODE_ENV: 'production',
        AUTH_ISSUER: 'https://idp.example',
        AUTH_JWKS_URL: 'http://10.0.0.5/jwks',
        AUTH_AUDIENCE: 'api',
      },
      /AUTH_JWKS_URL must be an https:\/\/ URL/,
    ],
  ])('refuses %j with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuses a webhook retry period longer than the outbox retention, naming both variables', () => {
    const message =
      'WEBHOOK_RETRY_FOR_SECONDS (172801) must not exceed LIVE_RETENTION_DAYS × 86400 (2 × 86400 = 172800): ' +
      'events would be deleted while their webhook is still being retried. Lower ' +
      'WEBHOOK_RETRY_FOR_SECONDS or raise LIVE_RETENTION_DAYS.';
    const env = { LIVE_RETENTION_DAYS: '2', WEBHOOK_RETRY_FOR_SECONDS: '172801' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
    // Also with the default retry period (24 h) and no webhook configured: the
    // outbox is shared, and another instance may deliver.
    expect(() =>
      loadConfig({ LIVE_RETENTION_DAYS: '1', WEBHOOK_RETRY_FOR_SECONDS: '86401' }),
    ).toThrow(
      /WEBHOOK_RETRY_FOR_SECONDS \(86401\) must not exceed LIVE_RETENTION_DAYS × 86400 \(1 × 86400 = 86400\)/,
    );
    // Equal is fine, and so are the defaults (24 h within 7 days).
    expect(loadConfig({ ...env, WEBHOOK_RETRY_FOR_SECONDS: '172800' }).live.retentionDays).toBe(2);
    expect(loadConfig({ LIVE_RETENTION_DAYS: '1' }).live.retentionDays).toBe(1);
    const webhooks = loadConfig({
      WEBHOOK_URL: 'https://hooks.example/in',
      WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      WEBHOOK_RETRY_FOR_SECONDS: String(30 * 86_400),
      LIVE_RETENTION_DAYS: '30',
    });
    expect(webhooks.webhook?.retryForSeconds).toBe(30 * 86_400);
  });

  it('in production accepts an audience with https URLs, and plain http only on loopback', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_AUDIENCE: 'api',
      DATABASE_URL: 'postgres://db.internal/profiles',
    };
    expect(loadConfig({ ...production, AUTH_ISSUER: 'https://idp.example' }).auth).toEqual({
      kind: 'oidc',
      issuer: 'https://idp.example',
      audience: ['api'],
      maxTokenLifetimeSeconds: 86_400,
    });
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '[::1]', '[::ffff:127.0.0.1]']) {
      const base = `http://${host}:8080`;
      const config = loadConfig({
        ...production,
        AUTH_ISSUER: base,
        AUTH_JWKS_URL: `${base}/jwks.json`,
      });
      expect(config.auth.kind).toBe('jwks');
    }
    // A static key is never fetched: an issuer that is not a URL is fine.
    expect(
      loadConfig({ ...production, AUTH_ISSUER: 'urn:idp', AUTH_HS256_SECRET: 's'.repeat(32) }).auth
        .kind,
    ).toBe('hs256');
  });

  it('listens on 127.0.0.1 outside production and on all interfaces in production', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(
      loadConfig({
        NODE_ENV: 'production',
        AUTH_ISSUER: 'https://i.example',
        AUTH_AUDIENCE: 'a',
        ALLOW_EMBEDDED_DATABASE: 'true',
      }).host,
    ).toBe('::');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('in production refuses the embedded database unless ALLOW_EMBEDDED_DATABASE=true', () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_ISSUER: 'https://idp.example',
      AUTH_AUDIENCE: 'api',
    };
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig(production)).toThrow(
      /DATABASE_URL is not set and NODE_ENV=production.*ALLOW_EMBEDDED_DATABASE=true/,
    );
    // A misspelt DATABASE_URL is no DATABASE_URL.
    expect(() => loadConfig({ ...production, DATABSE_URL: 'postgres://db/x' })).toThrow(
      /DATABASE_URL is not set/,
    );
    expect(() => loadConfig({ ...production, ALLOW_EMBEDDED_DATABASE: 'false' })).toThrow(
      /DATABASE_URL is not set/,
    );
    expect(loadConfig({ ...production, ALLOW_EMBEDDED_DATABASE: 'TRUE' }).databaseUrl).toBe(
      undefined,
    );
    expect(loadConfig({ ...production, DATABASE_URL: 'postgres://db/x' }).databaseUrl).toBe(
      'postgres://db/x',
    );
    // Outside production the embedded database needs no permission.
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(() => loadConfig({ ALLOW_EMBEDDED_DATABASE: 'yes' })).toThrow(
      /ALLOW_EMBEDDED_DATABASE must be true or false/,
    );
  });

  it('migrates at start unless MIGRATE_ON_START=false', () => {
    expect(loadConfig({}).migrateOnStart).toBe(true);
    expect(loadConfig({ MIGRATE_ON_START: '' }).migrateOnStart).toBe(true);
    expect(loadConfig({ MIGRATE_ON_START: 'false' }).migrateOnStart).toBe(false);
    expect(loadConfig({ MIGRATE_ON_START: ' False ' }).migrateOnStart).toBe(false);
    expect(() => loadConfig({ MIGRATE_ON_START: '0' })).toThrow(
      /MIGRATE_ON_START must be true or false/,
    );
  });
});

describe('unknownVariables', () => {
  it('names near misses of our variables with the one they were probably meant to be', () => {
    expect(
      unknownVariables({
        DATABSE_URL: 'postgres://db/x',
        LOG_LEVLE: 'debug',
        WEBHOOK_SECRETS: 'x',
        auth_issuer: 'https://idp.example',
        PROT: '8080',
      }),
    ).toEqual([
      { name: 'DATABSE_URL', didYouMean: 'DATABASE_URL' },
      { name: 'LOG_LEVLE', didYouMean: 'LOG_LEVEL' },
      { name: 'PROT', didYouMean: 'PORT' },
      { name: 'WEBHOOK_SECRETS', didYouMean: 'WEBHOOK_SECRET' },
      { name: 'auth_issuer', didYouMean: 'AUTH_ISSUER' },
    ]);
  });

  it('names unknown variables with our prefixes, without a guess when none is close', () => {
    expect(unknownVariables({ LIVE_STREAMS_MAXIMUM: '9', DATABASE_POOL_SIZE_LIMIT: '3' })).toEqual([
      { name: 'DATABASE_POOL_SIZE_LIMIT', didYouMean: undefined },
      { name: 'LIVE_STREAMS_MAXIMUM', didYouMean: undefined },
    ]);
  });

  it("leaves our own variables and other software's alone", () => {
    const env = {
      ...Object.fromEntries(CONFIG_VARIABLES.map((name) => [name, ''])),
      PATH: '/usr/bin',
      HOME: '/root',
      HOSTNAME: 'web-1',
      USER: 'node',
      NODE_OPTIONS: '--max-old-space-size=128',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      TEST_DATABASE_URL: 'postgres://db/test',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      npm_lifecycle_event: 'start',
      PWD: '/app',
      TERM: 'xterm',
      LANG: 'C.UTF-8',
    };
    expect(unknownVariables(env)).toEqual([]);
  });
});
