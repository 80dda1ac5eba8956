import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Closed seasons' final standings (docs/SEASONS.md, Archives). The archive of
 * a board is cut once: the `season_archives` insert is ON CONFLICT DO NOTHING,
 * and only the transaction that inserted it copies the entries, so concurrent
 * first reads (on any instance) wait on the primary key and then copy nothing.
 *
 * The copy reads the whole board, so the transaction runs under its own
 * `statement_timeout` (`timeoutMs`, SEASON_ARCHIVE_TIMEOUT_MS), not the
 * request's: under that one a big board's cut would time out, roll back and
 * be tried again by every read, never finishing.
 */
export async function archiveSeason(
  db: Kysely<Database>,
  board: string,
  closedAt: Date,
  options: { timeoutMs: number },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
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
    if (!inserted) return;
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
          .where('e.board', '=', board),
      )
      .execute();
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
