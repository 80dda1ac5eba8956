/**
 * The reads baseline of `npm run bench:reads` (bench/reads.ts): `node:http`,
 * the same jose ES256 verification as bench/baseline.ts, and the same SQL as
 * the service: it calls the service's own query functions (db/queries/), so
 * every statement is the one the service sends, through a plain Kysely on a
 * `pg` pool of DATABASE_POOL_MAX (10). No Express, no tRPC, no zod, no read
 * router, no shared first page: every request runs its SQL. Its answers carry
 * the same rows, not the service's exact JSON shapes.
 *
 *   GET /api/leaderboard?limit=&team=     leaderboardPage (the all-time board)
 *   GET /api/leaderboard/me?radius=       findRankedEntry + neighbours, one REPEATABLE READ snapshot
 *   GET /api/user/points?limit=           recentLedgerEntries
 *
 * The token's subject maps to the user id through an in-memory map filled by
 * one SELECT the first time it is seen, as bench/floor.ts does.
 *
 * Env: PORT, DATABASE_URL, AUTH_ISSUER, AUTH_JWKS_URL, DATABASE_POOL_MAX.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { CamelCasePlugin, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { findRankedEntry, leaderboardPage, neighbours } from '../db/queries/leaderboard.js';
import { recentLedgerEntries } from '../db/queries/points.js';
import { findUserByIdentity } from '../db/queries/users.js';
import type { Database } from '../db/schema.js';
import { send, tokenVerifier } from './bare.js';

const env = process.env;
const issuer = env.AUTH_ISSUER!;
const verify = tokenVerifier(env);
const db = new Kysely<Database>({
  dialect: new PostgresDialect({
    pool: new pg.Pool({
      connectionString: env.DATABASE_URL,
      max: Number(env.DATABASE_POOL_MAX ?? 10),
      statement_timeout: 5000,
    }),
  }),
  plugins: [new CamelCasePlugin()],
});
const userIds = new Map<string, string>();

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

async function userIdOf(req: IncomingMessage): Promise<string> {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) throw new HttpError(401);
  let sub: string;
  try {
    sub = await verify(header.slice(7));
  } catch {
    throw new HttpError(401);
  }
  const known = userIds.get(sub);
  if (known) return known;
  const user = await findUserByIdentity(db, issuer, sub);
  if (!user) throw new HttpError(404);
  userIds.set(sub, user.id);
  return user.id;
}

const int = (value: string | null, fallback: number) => (value === null ? fallback : Number(value));

async function answer(url: URL, userId: string): Promise<unknown> {
  const query = url.searchParams;
  switch (url.pathname) {
    case '/api/leaderboard': {
      const limit = int(query.get('limit'), 20);
      const rows = await leaderboardPage(db, {
        team: query.get('team') ?? undefined,
        limit: limit + 1,
      });
      return { entries: rows.slice(0, limit), more: rows.length > limit };
    }
    case '/api/leaderboard/me': {
      const radius = int(query.get('radius'), 5);
      return db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const entry = await findRankedEntry(trx, userId);
          if (!entry) throw new HttpError(404);
          return { entry, ...(await neighbours(trx, entry, { count: radius })) };
        });
    }
    case '/api/user/points': {
      const limit = int(query.get('limit'), 20);
      const rows = await recentLedgerEntries(db, userId, limit + 1);
      return { entries: rows.slice(0, limit), more: rows.length > limit };
    }
    default:
      throw new HttpError(404);
  }
}

const server = createServer((req, res) => {
  if (req.method !== 'GET') {
    send(res, 405, { success: false });
    return;
  }
  (async () => {
    const url = new URL(req.url ?? '/', 'http://baseline');
    if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
    const data = await answer(url, await userIdOf(req));
    send(res, 200, { success: true, data });
  })().catch((error: unknown) => {
    if (error instanceof HttpError) {
      send(res, error.status, { success: false });
      return;
    }
    process.stderr.write(`reads baseline error: ${String(error)}\n`);
    send(res, 500, { success: false });
  });
});

server.listen(Number(env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  void db.destroy().then(() => process.exit(0));
});
