import { randomUUID } from 'node:crypto';
import { TRPCClientError } from '@trpc/client';
import { sql, type Kysely } from 'kysely';
import { rebuildRankCounts } from '../../db/queries/rank.js';
import { teamKey } from '../../db/team-key.js';
import type { Database } from '../../db/schema.js';
import { route } from './routes.js';
import type { TestApp } from './test-app.js';

/**
 * The read APIs through either face, with one result shape, so a test can run
 * the same scenario over REST (real HTTP to the documented path) and over the
 * typed tRPC client.
 */
export type Face = 'rest' | 'trpc';
export const FACES: Face[] = ['rest', 'trpc'];

export type ReadProcedure =
  'me' | 'leaderboard' | 'leaderboardAroundMe' | 'leaderboardSeasons' | 'pointsHistory' | 'quests';

/** Each read's REST path, from the router's meta (test/helpers/routes.ts). */
export const READ_PATHS = Object.fromEntries(
  (
    [
      'me',
      'leaderboard',
      'leaderboardAroundMe',
      'leaderboardSeasons',
      'pointsHistory',
      'quests',
    ] as const
  ).map((name) => [name, route(name).path]),
) as Record<ReadProcedure, string>;

export type ReadResult =
  | { ok: true; status: number; data: any }
  | {
      ok: false;
      status: number;
      code: string;
      message: string;
      issues: Array<{ path: string; message: string }> | undefined;
    };

/** Query parameters as a REST caller writes them; tRPC gets the typed values. */
export type ReadInput = Record<string, string | number | undefined>;

export function reader(app: TestApp, face: Face) {
  return async function read(
    procedure: ReadProcedure,
    token: string,
    input: ReadInput = {},
  ): Promise<ReadResult> {
    if (face === 'rest') {
      const query = new URLSearchParams();
      for (const [key, value] of Object.entries(input)) {
        if (value !== undefined) query.set(key, String(value));
      }
      const qs = query.size > 0 ? `?${query}` : '';
      const response = await app.request('GET', `${READ_PATHS[procedure]}${qs}`, { token });
      if (response.status === 200) {
        if (response.body?.success !== true)
          throw new Error(`not a success body: ${response.text}`);
        return { ok: true, status: 200, data: response.body.data };
      }
      if (response.body?.success !== false) throw new Error(`not an error body: ${response.text}`);
      return {
        ok: false,
        status: response.status,
        code: response.body.error.code,
        message: response.body.error.message,
        issues: response.body.error.issues,
      };
    }
    const client = app.trpc(token) as unknown as Record<
      ReadProcedure,
      { query(input?: unknown): Promise<{ success: true; data: unknown }> }
    >;
    const hasInput = procedure !== 'me' && procedure !== 'quests';
    try {
      const result = await client[procedure].query(hasInput ? input : undefined);
      return { ok: true, status: 200, data: result.data };
    } catch (error) {
      if (!(error instanceof TRPCClientError)) throw error;
      const data = error.data as {
        httpStatus: number;
        errorCode: string;
        issues?: Array<{ path: string; message: string }>;
      };
      return {
        ok: false,
        status: data.httpStatus,
        code: data.errorCode,
        message: error.message,
        issues: data.issues,
      };
    }
  };
}

export interface SeedEntry {
  points: number;
  /**
   * Who reached the score first: entries take their reached_seq in ascending
   * `micros` order (ties in the order given), and reached_at is that many
   * microseconds after a fixed instant.
   */
  micros?: number;
  team?: string | null;
  handle?: string;
}

export interface SeededUser {
  userId: string;
  subject: string;
  points: number;
  team: string | null;
}

const SEED_BASE = '2026-01-01T00:00:00.000000Z';

/**
 * Onboarded users with all-time leaderboard entries in states the API cannot
 * produce on demand (any points, any order of arrival). Rows are written as
 * the service writes them: team_key = teamKey(favorite_team), reached_seq from
 * the sequence, rank_counts rebuilt.
 */
export async function seedEntries(
  db: Kysely<Database>,
  issuer: string,
  entries: SeedEntry[],
): Promise<SeededUser[]> {
  const seeded: SeededUser[] = [];
  for (const entry of entries) {
    const subject = `seed-${randomUUID()}`;
    const team = entry.team ?? null;
    const { id } = await db
      .insertInto('users')
      .values({ issuer, subject, onboardedAt: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('profiles')
      .values({
        userId: id,
        name: null,
        handle: entry.handle ?? null,
        location: null,
        favoriteSport: null,
        favoriteTeam: team,
        favoritePlayer: null,
        rivalTeam: null,
        profileUrl: null,
      })
      .execute();
    if (entry.handle !== undefined) {
      await db
        .insertInto('handleClaims')
        .values({ handleKey: entry.handle.toLowerCase(), userId: id })
        .execute();
    }
    seeded.push({ userId: id, subject, points: entry.points, team });
  }
  // Sequence numbers in arrival order (stable: equal micros keep the order given).
  const arrival = entries
    .map((entry, index) => ({ entry, user: seeded[index]! }))
    .sort((a, b) => (a.entry.micros ?? 0) - (b.entry.micros ?? 0));
  for (const { entry, user } of arrival) {
    await db
      .insertInto('leaderboardEntries')
      .values({
        board: 'all',
        userId: user.userId,
        points: entry.points,
        reachedSeq: sql<string>`nextval('leaderboard_reached_seq')`,
        reachedAt: sql<Date>`${SEED_BASE}::timestamptz + ${entry.micros ?? 0} * interval '1 microsecond'`,
        updatedAt: new Date(),
        teamKey: user.team === null ? null : teamKey(user.team),
      })
      .execute();
  }
  await rebuildRankCounts(db);
  return seeded;
}

/**
 * The expected rank order, computed independently of the service's SQL: every
 * all-time entry read raw, sorted in JavaScript by points desc, reached_seq
 * asc (as a BigInt), user id asc.
 */
export async function expectedOrder(
  db: Kysely<Database>,
  team?: string,
): Promise<Array<{ userId: string; points: number }>> {
  let query = db
    .selectFrom('leaderboardEntries as e')
    .leftJoin('profiles as p', 'p.userId', 'e.userId')
    .select(['e.userId', 'e.points', 'p.favoriteTeam', sql<string>`e.reached_seq::text`.as('seq')])
    .where('e.board', '=', 'all');
  if (team !== undefined) query = query.where('p.favoriteTeam', 'is not', null);
  const rows = (await query.execute()).filter(
    (row) => team === undefined || row.favoriteTeam!.toLowerCase() === team.toLowerCase(),
  );
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const bySeq = (a: string, b: string) =>
    BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0;
  rows.sort((a, b) => b.points - a.points || bySeq(a.seq, b.seq) || cmp(a.userId, b.userId));
  return rows.map((row) => ({ userId: row.userId, points: row.points }));
}

/** Follows nextCursor to the end; returns every page. */
export async function walkPages(
  read: ReturnType<typeof reader>,
  procedure: 'leaderboard' | 'pointsHistory',
  token: string,
  input: ReadInput,
): Promise<Array<{ entries: any[]; nextCursor: string | null }>> {
  const pages: Array<{ entries: any[]; nextCursor: string | null }> = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 1000; guard += 1) {
    const result = await read(procedure, token, { ...input, cursor });
    if (!result.ok) throw new Error(`page failed: ${result.status} ${result.code}`);
    pages.push(result.data);
    if (result.data.nextCursor === null) return pages;
    cursor = result.data.nextCursor;
  }
  throw new Error('pages never ended');
}
