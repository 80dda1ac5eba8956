/**
 * The floor baseline of `npm run bench` (issue 12): the least a server can do
 * for `PATCH /api/user` — `node:http`, the same jose ES256 verification as
 * bench/baseline.ts (same JWKS over HTTP, same checks), then ONE statement
 * through `pg` (pool of 10):
 *
 *   UPDATE profiles SET location = $2, updated_at = now() WHERE user_id = $1 RETURNING *
 *
 * No validation, no quests, no ledger, no rank, no version guard, no logging.
 * The token's subject is mapped to the user id through an in-memory map filled
 * by one `SELECT` the first time a subject is seen (the service keeps the same
 * kind of cache, src/auth/user-ids.ts); the bench's warm-up round fills it, so
 * the measured rounds send the one UPDATE per request.
 *
 * Raw SQL through `pg` is on purpose: this file is the comparison, not the
 * service.
 *
 * Env: PORT, DATABASE_URL, AUTH_ISSUER, AUTH_JWKS_URL.
 */
import { createServer, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { send, tokenVerifier } from './bare.js';

const env = process.env;
const issuer = env.AUTH_ISSUER!;
const verify = tokenVerifier(env);
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 10 });
const userIds = new Map<string, string>();

class HttpError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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
  const found = await pool.query<{ id: string }>(
    'SELECT id FROM users WHERE issuer = $1 AND subject = $2',
    [issuer, sub],
  );
  const id = found.rows[0]?.id;
  if (!id) throw new HttpError(404);
  userIds.set(sub, id);
  return id;
}

const server = createServer((req, res) => {
  if (req.method !== 'PATCH' || req.url !== '/api/user') {
    send(res, 404, { success: false });
    return;
  }
  (async () => {
    const [text, userId] = await Promise.all([readBody(req), userIdOf(req)]);
    const body = JSON.parse(text) as { location?: unknown };
    const location = typeof body.location === 'string' ? body.location : null;
    const { rows } = await pool.query(
      'UPDATE profiles SET location = $2, updated_at = now() WHERE user_id = $1 RETURNING *',
      [userId, location],
    );
    if (!rows[0]) throw new HttpError(404);
    send(res, 200, { success: true, data: rows[0] });
  })().catch((error: unknown) => {
    if (error instanceof HttpError) {
      send(res, error.status, { success: false });
      return;
    }
    if (error instanceof SyntaxError) {
      send(res, 400, { success: false });
      return;
    }
    process.stderr.write(`floor error: ${String(error)}\n`);
    send(res, 500, { success: false });
  });
});

server.listen(Number(env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  void pool.end().then(() => process.exit(0));
});
