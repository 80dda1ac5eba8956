/**
 * The bare baseline the benchmark compares the service with: `node:http`, the
 * same jose verification (same JWKS, same checks) and the same tables through
 * `pg`, with no framework, no validation library and no query builder. It
 * answers PATCH /api/user and POST /api/user/profile with the same shapes.
 *
 * Onboarding deliberately runs its work as separate, plainly written
 * statements (bench/baseline-onboarding.ts) in one transaction (lock, profile
 * upsert, onboarded flag, leaderboard upsert, quest read, balance update,
 * ledger insert, one upsert per quest, rank, history): what a careful
 * engineer writes without tuning.
 * It keeps the all-time board only and ranks with the plain O(rank) count;
 * it does not keep season boards, rank counts (db/queries/rank.ts) or the
 * live outbox, which the service's write does in the same statement. So on
 * first-time onboarding it does less work than the service.
 *
 * Raw SQL through `pg` is on purpose: this file is the comparison, not the
 * service. It reuses the service's plain domain functions (field list, quest
 * planning) so it does not re-implement those rules.
 *
 * Env: PORT, DATABASE_URL, AUTH_ISSUER, AUTH_JWKS_URL, DATABASE_POOL_MAX.
 */
import { createServer, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { send, tokenVerifier } from './bare.js';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS } from '../db/profile-fields.js';
import { announcedQuest } from '../src/domain/events.js';
import type { ProfileFields } from '../db/schema.js';
import { onboardingStatements, syncQuests } from './baseline-onboarding.js';

const env = process.env;
const issuer = env.AUTH_ISSUER!;
const verify = tokenVerifier(env);
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  max: Number(env.DATABASE_POOL_MAX ?? 10),
  statement_timeout: 5000,
});
// Matches the service's int8-as-text convention (pg's default anyway).

const COLUMNS = Object.fromEntries(
  PROFILE_FIELDS.map((field) => [field, PROFILE_FIELD_TABLE[field].column]),
) as Record<keyof ProfileFields, string>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 16 * 1024) throw new HttpError(413, 'PAYLOAD_TOO_LARGE');
    chunks.push(chunk as Buffer);
  }
  const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'VALIDATION_FAILED');
  }
  return body as Record<string, unknown>;
}

async function authenticate(req: IncomingMessage): Promise<string> {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Bearer ')) throw new HttpError(401, 'UNAUTHENTICATED');
  let sub: string;
  try {
    sub = await verify(header.slice(7));
  } catch {
    throw new HttpError(401, 'UNAUTHENTICATED');
  }
  const found = await pool.query<{ id: string }>(
    'SELECT id FROM users WHERE issuer = $1 AND subject = $2',
    [issuer, sub],
  );
  if (found.rows[0]) return found.rows[0].id;
  const inserted = await pool.query<{ id: string }>(
    'INSERT INTO users (issuer, subject) VALUES ($1, $2) ON CONFLICT (issuer, subject) DO NOTHING RETURNING id',
    [issuer, sub],
  );
  if (inserted.rows[0]) return inserted.rows[0].id;
  const again = await pool.query<{ id: string }>(
    'SELECT id FROM users WHERE issuer = $1 AND subject = $2',
    [issuer, sub],
  );
  return again.rows[0]!.id;
}

function patchOf(body: Record<string, unknown>): Partial<ProfileFields> {
  const patch: Partial<ProfileFields> = {};
  for (const [key, value] of Object.entries(body)) {
    if (!(key in COLUMNS)) throw new HttpError(400, 'VALIDATION_FAILED');
    if (value !== null && typeof value !== 'string') throw new HttpError(400, 'VALIDATION_FAILED');
    const text = value === null ? '' : value.normalize('NFC').trim();
    patch[key as keyof ProfileFields] = text === '' ? null : text.replace(/^@/, '');
  }
  return patch;
}

interface Locked {
  user: Record<string, unknown>;
  profile: ProfileFields;
}

async function lockAndRead(client: pg.PoolClient, userId: string): Promise<Locked> {
  const { rows } = await client.query(
    `SELECT u.id, u.onboarded_at, u.created_at, u.updated_at AS user_updated_at, p.*
       FROM users u LEFT JOIN profiles p ON p.user_id = u.id
      WHERE u.id = $1 FOR UPDATE OF u`,
    [userId],
  );
  const row = rows[0] as Record<string, unknown>;
  const profile = {} as ProfileFields;
  for (const field of PROFILE_FIELDS) {
    profile[field] = (row[COLUMNS[field]] as string | null | undefined) ?? null;
  }
  return { user: row, profile };
}

async function saveProfile(
  client: pg.PoolClient,
  userId: string,
  next: ProfileFields,
): Promise<Record<string, unknown>> {
  const columns = PROFILE_FIELDS.map((field) => COLUMNS[field]);
  const values = PROFILE_FIELDS.map((field) => next[field]);
  try {
    const { rows } = await client.query(
      `INSERT INTO profiles (user_id, ${columns.join(', ')}, created_at, updated_at)
       VALUES ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')}, now(), now())
       ON CONFLICT (user_id) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}, updated_at = now()
       RETURNING *`,
      [userId, ...values],
    );
    return rows[0] as Record<string, unknown>;
  } catch (error) {
    if ((error as { code?: string }).code === '23505') throw new HttpError(409, 'HANDLE_TAKEN');
    throw error;
  }
}

function iso(value: unknown): string | null {
  return value instanceof Date ? value.toISOString() : null;
}

function profileJson(profile: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) out[field] = profile[COLUMNS[field]] ?? null;
  return out;
}

function userJson(
  user: Record<string, unknown>,
  profile: Record<string, unknown>,
  points: number,
): Record<string, unknown> {
  return {
    id: user.id,
    ...profileJson(profile),
    points,
    onboardedAt: iso(user.onboarded_at),
    createdAt: iso(user.created_at),
    updatedAt: iso(profile.updated_at ?? user.user_updated_at ?? user.updated_at),
  };
}

async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function updateUser(userId: string, body: Record<string, unknown>) {
  const patch = patchOf(body);
  return inTransaction(async (client) => {
    const locked = await lockAndRead(client, userId);
    const next = { ...locked.profile, ...patch };
    const profile = await saveProfile(client, userId, next);
    let points = 0;
    if (locked.user.onboarded_at) ({ points } = await syncQuests(client, userId, next));
    return { status: 200, data: userJson(locked.user, profile, points) };
  });
}

async function onboard(userId: string, body: Record<string, unknown>) {
  const patch = patchOf(body);
  if ('rivalTeam' in patch) throw new HttpError(400, 'VALIDATION_FAILED');
  return inTransaction(async (client) => {
    const locked = await lockAndRead(client, userId);
    const next = { ...locked.profile, ...patch };
    const profile = await saveProfile(client, userId, next);
    const first = !locked.user.onboarded_at;
    const { user, points, plan, awarded, rank, ledger } = await onboardingStatements(
      client,
      userId,
      next,
    );
    const completed = new Set(plan.reached.map((tier) => tier.instance.quest.definition.key));
    return {
      status: first ? 201 : 200,
      data: {
        user: userJson(user, profile, points),
        updatedProfile: { ...profileJson(profile), updatedAt: iso(profile.updated_at) },
        leaderboardEntry: {
          userId,
          handle: profile.handle ?? null,
          name: profile.name ?? null,
          profileUrl: profile.profile_url ?? null,
          points: rank.points,
          rank: Number(rank.rank),
        },
        pointsHistory: {
          balance: points,
          entries: ledger.map((row: Record<string, unknown>) => ({
            id: String(row.id),
            delta: row.delta,
            reason: row.reason,
            questId: row.quest_id,
            balanceAfter: row.balance_after,
            createdAt: iso(row.created_at),
          })),
        },
        questSync: {
          pointsAwarded: awarded,
          completed: plan.quests
            .filter((view) => completed.has(view.instance.quest.definition.key))
            .map(announcedQuest),
          quests: plan.quests.map(announcedQuest),
        },
      },
    };
  });
}

const server = createServer((req, res) => {
  const route =
    req.method === 'PATCH' && req.url === '/api/user'
      ? updateUser
      : req.method === 'POST' && req.url === '/api/user/profile'
        ? onboard
        : undefined;
  if (!route) {
    send(res, 404, { success: false, error: { code: 'NOT_FOUND', message: 'Not found' } });
    return;
  }
  (async () => {
    const body = await readJson(req);
    const userId = await authenticate(req);
    const { status, data } = await route(userId, body);
    send(res, status, { success: true, data });
  })().catch((error: unknown) => {
    if (error instanceof HttpError) {
      send(res, error.status, { success: false, error: { code: error.code, message: error.code } });
      return;
    }
    if (error instanceof SyntaxError) {
      send(res, 400, { success: false, error: { code: 'VALIDATION_FAILED', message: 'bad json' } });
      return;
    }
    process.stderr.write(`baseline error: ${String(error)}\n`);
    send(res, 500, { success: false, error: { code: 'INTERNAL', message: 'internal' } });
  });
});

server.listen(Number(env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ msg: 'listening', port: typeof address === 'object' && address ? address.port : 0 })}\n`,
  );
});
process.on('SIGTERM', () => {
  server.close();
  server.closeIdleConnections();
  void pool.end().then(() => process.exit(0));
});
