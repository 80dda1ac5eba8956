import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Arbitrary, fixed: the class of the advisory locks that keep one cut of a season at a time. */
const CUT_LOCK_CLASS = 7_412_002;

/** Whether the season's final standings have been cut. */
export async function hasArchive(db: Kysely<Database>, board: string): Promise<boolean> {
  const row = await db
    .selectFrom('seasonArchives')
    .select('board')
    .where('board', '=', board)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether anyone has an entry on the board (earned points in that season). */
export async function hasEntries(db: Kysely<Database>, board: string): Promise<boolean> {
  const row = await db
    .selectFrom('leaderboardEntries')
    .select('userId')
    .where('board', '=', board)
    .where('hidden', '=', false)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What a cut did: `archived` (now, or by someone before), `empty` (nobody
 * has an entry: no archive, a season without standings is none), or `busy`
 * (another transaction, on any instance, is cutting it right now).
 */
export type CutOutcome = 'archived' | 'empty' | 'busy';

/**
 * Cuts a closed season's final standings unless that is done (docs/SEASONS.md,
 * Archives): one transaction inserts the `season_archives` row and copies
 * the board's entries with their ranks into `season_standings`. It never
 * waits for another cut: the transaction first takes a transaction-level
 * advisory lock on the season without waiting (safe behind a transaction
 * pooler), and answers `busy` at once, releasing its connection, when
 * another transaction holds it. The insert stays ON CONFLICT DO NOTHING,
 * copying only when it inserted, so a cut that took no lock (an older
 * version during a rolling deploy) still leaves one archive.
 *
 * The copy reads the whole board, so it runs under its own
 * `statement_timeout` (`timeoutMs`, SEASON_ARCHIVE_TIMEOUT_MS), not the
 * request's: under that one a big board's cut would time out, roll back and
 * be tried again by every read, never finishing.
 */
export async function cutSeasonArchive(
  db: Kysely<Database>,
  board: string,
  closedAt: Date,
  options: { timeoutMs: number },
): Promise<CutOutcome> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ locked: boolean }>`
      SELECT pg_try_advisory_xact_lock(${CUT_LOCK_CLASS}, hashtext(${board})) AS locked`.execute(
      trx,
    );
    if (!rows[0]?.locked) return 'busy';
    if (await hasArchive(trx, board)) return 'archived';
    if (!(await hasEntries(trx, board))) return 'empty';
    // SET LOCAL, as a function so the value is a parameter: it ends with the transaction.
    await sql`SELECT set_config('statement_timeout', ${String(options.timeoutMs)}, true)`.execute(
      trx,
    );
    const inserted = await trx
      .insertInto('seasonArchives')
      .values({ board, closedAt })
      .onConflict((oc) => oc.column('board').doNothing())
      .returning('board')
      .executeTakeFirst();
    if (!inserted) return 'archived';
    await trx
      .insertInto('seasonStandings')
      .columns(['board', 'rank', 'userId', 'points'])
      .expression(
        trx
          .selectFrom('leaderboardEntries as e')
          .select([
            'e.board',
            sql<number>`row_number() OVER (ORDER BY e.points DESC, e.reached_seq, e.user_id)`.as(
              'rank',
            ),
            'e.userId',
            'e.points',
          ])
          .where('e.board', '=', board)
          // A fan banned at the cut is not in the standings (docs/CATALOG.md, "Bans").
          .where('e.hidden', '=', false),
      )
      .execute();
    return 'archived';
  });
}

export interface StandingRow {
  userId: string | null;
  handle: string | null;
  name: string | null;
  profileUrl: string | null;
  points: number;
  rank: number;
}

/** Up to `limit` final standings after rank `afterRank`, with today's profile of live accounts. */
export async function standingsPage(
  db: Kysely<Database>,
  options: { board: string; afterRank: number; limit: number },
): Promise<StandingRow[]> {
  return db
    .selectFrom('seasonStandings as s')
    .leftJoin('profiles as p', 'p.userId', 's.userId')
    .select(['s.userId', 'p.handle', 'p.name', 'p.profileUrl', 's.points', 's.rank'])
    .where('s.board', '=', options.board)
    .where('s.rank', '>', options.afterRank)
    .orderBy('s.rank')
    .limit(options.limit)
    .execute();
}

/**
 * Boards named `<period>:…` that sort before `before` (ids sort in time
 * order) and have entries or an archive, newest first.
 */
export async function seasonBoardsBefore(
  db: Kysely<Database>,
  options: { period: string; before: string; limit: number },
): Promise<string[]> {
  const prefix = `${options.period}:`;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('leaderboardEntries')
        .select('board')
        .where('board', 'like', `${prefix}%`)
        .union(eb.selectFrom('seasonArchives').select('board').where('board', 'like', `${prefix}%`))
        .as('b'),
    )
    .select('b.board')
    .distinct()
    .where('b.board', '<', options.before)
    .orderBy('b.board', 'desc')
    .limit(options.limit)
    .execute();
  return rows.map((row) => row.board);
}

/** Which of `boards` have been archived (their standings are final). */
export async function archivedAmong(
  db: Kysely<Database>,
  boards: readonly string[],
): Promise<Set<string>> {
  if (boards.length === 0) return new Set();
  const rows = await db
    .selectFrom('seasonArchives')
    .select('board')
    .where('board', 'in', [...boards])
    .execute();
  return new Set(rows.map((row) => row.board));
}
