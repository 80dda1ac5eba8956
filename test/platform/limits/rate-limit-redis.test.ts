import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * Rate limits through rate-limiter-flexible with the real Redis at
 * 127.0.0.1:6379 (TEST_REDIS_URL overrides): instances sharing REDIS_URL share
 * the counts; without it each counts alone; with Redis down or going away each
 * instance counts in its own memory and no request fails or waits (the
 * documented behaviour, docs/SECURITY.md).
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const inCi = process.env.CI === 'true';

async function reachable(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    maxRetriesPerRequest: 0,
  });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const hasRedis = await reachable(REDIS_URL);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('rate limits in Redis', () => {
  it.runIf(!hasRedis && inCi)('has Redis under CI', () => {
    expect.fail(`CI=true but no Redis answers at ${REDIS_URL}`);
  });

  describe.skipIf(!hasRedis)('with Redis', () => {
    let database: TestDatabase;
    let issuer: TokenIssuer;
    const apps: TestApp[] = [];
    let redis: Redis;

    beforeAll(async () => {
      database = await createTestDatabase();
      issuer = await startTokenIssuer();
      redis = new Redis(REDIS_URL);
    });

    afterAll(async () => {
      for (const app of apps) await app.close();
      redis?.disconnect();
      await issuer?.stop();
      await database?.destroy();
    });

    /**
     * An instance with its own connection to Redis. Its Redis commands may
     * take up to 10 s: at the service's 250 ms a command slowed by a busy
     * machine is counted in the instance's own memory instead (by design,
     * src/rate-limit.ts), which would make the shared counts here differ.
     */
    async function appWith(env: Record<string, string>): Promise<TestApp> {
      const app = await startTestApp({ database, issuer, env, redisCommandTimeoutMs: 10_000 });
      apps.push(app);
      return app;
    }

    const patch = async (app: TestApp, token: string) =>
      app.request('PATCH', '/api/user', { token, body: { name: 'Limited' } });

    it('two instances sharing REDIS_URL share the per-user limit', async () => {
      const prefix = `test:${randomUUID()}:`;
      const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, RATE_LIMIT_PER_USER: '3' };
      const [a, b] = [await appWith(env), await appWith(env)];
      const token = await issuer.sign(uniqueSubject('shared'));

      const answers = [await patch(a!, token), await patch(b!, token), await patch(a!, token)];
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(answers.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0']);
      for (const app of [b!, a!]) {
        const refused = await patch(app, token);
        expect(refused.status).toBe(429);
        expect(refused.body.error).toEqual({
          code: 'RATE_LIMITED',
          message: 'Too many requests for this user; slow down',
        });
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      // The counts are in Redis, under the configured prefix.
      expect(await redis.keys(`${prefix}user:*`)).toHaveLength(1);
    });

    it('two instances sharing REDIS_URL share the per-IP limit', async () => {
      const env = {
        REDIS_URL,
        REDIS_KEY_PREFIX: `test:${randomUUID()}:`,
        RATE_LIMIT_PER_IP: '3',
        RATE_LIMIT_PER_USER: '100',
      };
      const [a, b] = [await appWith(env), await appWith(env)];
      const statuses: number[] = [];
      for (const app of [a!, b!, a!, b!]) {
        statuses.push((await patch(app, await issuer.sign(uniqueSubject()))).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it('without REDIS_URL each instance counts on its own', async () => {
      const env = { RATE_LIMIT_PER_USER: '2' };
      const [a, b] = [await appWith(env), await appWith(env)];
      const token = await issuer.sign(uniqueSubject('alone'));
      const onA = [await patch(a!, token), await patch(a!, token), await patch(a!, token)];
      expect(onA.map((r) => r.status)).toEqual([200, 200, 429]);
      expect((await patch(b!, token)).status).toBe(200);
    });

    // A request that waited for Redis to come back would never be answered:
    // the test's timeout bounds them all.
    it('with Redis unreachable, each instance counts in memory and every request is answered', async () => {
      const closed = await freePort();
      const app = await appWith({
        REDIS_URL: `redis://127.0.0.1:${closed}`,
        RATE_LIMIT_PER_USER: '2',
      });
      const token = await issuer.sign(uniqueSubject('no-redis'));
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await patch(app, token)).status);
      expect(statuses).toEqual([200, 200, 429]);
      expect(app.logs.some((line) => JSON.parse(line).msg?.startsWith('Redis unavailable'))).toBe(
        true,
      );
    });

    describe('a Redis that goes away mid-run', () => {
      let server: ChildProcess | undefined;
      afterAll(() => {
        server?.kill('SIGKILL');
      });

      it('keeps serving: counts move to memory when Redis stops answering', async () => {
        const port = await freePort();
        server = spawn(
          'redis-server',
          ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
          { stdio: 'ignore' },
        );
        const url = `redis://127.0.0.1:${port}`;
        for (let i = 0; i < 50 && !(await reachable(url)); i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const app = await appWith({ REDIS_URL: url, RATE_LIMIT_PER_USER: '3' });
        const token = await issuer.sign(uniqueSubject('goes-away'));
        const before = [await patch(app, token), await patch(app, token)];
        expect(before.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(['2', '1']);

        const exited = new Promise((resolve) => server!.once('exit', resolve));
        server.kill('SIGKILL');
        await exited;

        // Redis's count is out of reach; this instance starts its own.
        const after: string[] = [];
        for (let i = 0; i < 3; i += 1) {
          const response = await patch(app, token);
          after.push(`${response.status} ${response.headers.get('ratelimit-remaining')}`);
        }
        expect(after).toEqual(['200 2', '200 1', '200 0']);
        expect((await patch(app, token)).status).toBe(429);
      });
    });
  });
});
