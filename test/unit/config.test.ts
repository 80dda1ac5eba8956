import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_ISSUER, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('defaults to the development identity provider and embedded database', () => {
    const config = loadConfig({});
    expect(config.auth).toEqual({ kind: 'dev', issuer: DEV_ISSUER, audience: [] });
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

  it.each([
    [{ PORT: 'eighty' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ DATABASE_URL: 'mysql://x' }, /DATABASE_URL/],
    [{ RATE_LIMIT_PER_USER: '-1' }, /RATE_LIMIT_PER_USER/],
    [{ NODE_ENV: 'staging' }, /NODE_ENV/],
    [{ AUTH_ISSUER: 'x', AUTH_HS256_SECRET: 'short' }, /AUTH_HS256_SECRET/],
    [{ AUTH_JWKS_URL: 'https://idp/jwks' }, /AUTH_ISSUER is required/],
    [
      { AUTH_ISSUER: 'x', AUTH_JWKS_URL: 'https://a/j', AUTH_HS256_SECRET: 's'.repeat(32) },
      /only one key source/,
    ],
    [{ AUTH_ISSUER: 'not-a-url' }, /OIDC discovery/],
    [{ NODE_ENV: 'production' }, /NODE_ENV=production/],
  ])('refuses %j with a clear message', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
