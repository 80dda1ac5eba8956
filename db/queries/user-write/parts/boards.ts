/**
 * The board entries and their count cells (db/queries/rank.ts), for every
 * fan of the statement: the entries written, the bans that hide them.
 */
import { sql } from 'kysely';
import { teamKey } from '../../../team-key.js';
import { addCounts, countDeltas, positionsOf, type CountDelta } from '../../rank.js';
import { part, rowsOf, type Part, type Plans } from './part.js';

/**
 * The statement takes one number from `leaderboard_reached_seq` for each fan
 * with an entry whose points change (who reached a score first = who took
 * the smaller number), writes the entries, and moves each changed entry's
 * `rank_counts` cells (−1 on the old position's, +1 on the new), merged by
 * cell over all the fans (a move that keeps a cell cancels out) and locked
 * in key order. A banned fan's entries are stored hidden and move no count
 * (visibilityPart).
 */
export function boardsPart(plans: Plans): Part | undefined {
  if (plans.every((plan) => plan.boards.length === 0)) return undefined;
  const perFan = plans.map((plan) =>
    plan.boards.map(({ board, before, points }) => {
      const keepsPlace = before !== undefined && before.points === points;
      const newTeam = before === undefined || plan.team.changed;
      return {
        board,
        before,
        points,
        seq: keepsPlace ? before.seq : null,
        new_team: newTeam,
        team_key: newTeam ? null : before.teamKey,
      };
    }),
  );
  const fans = rowsOf(plans, (plan, fan) => {
    const entries = perFan[fan]!;
    if (entries.length === 0) return [];
    const team = plan.team.favoriteTeam;
    return [
      {
        new_seq: entries.some((entry) => entry.seq === null),
        new_team_key: team === null ? null : teamKey(team),
      },
    ];
  });
  const entries = rowsOf(plans, (_plan, fan) =>
    perFan[fan]!.map(({ before: _before, ...entry }) => entry),
  );
  const deltas = rowsOf(plans, (_plan, fan) =>
    perFan[fan]!.flatMap(({ board, before, points, seq, new_team, team_key }): CountDelta[] => [
      ...(before ? countDeltas(board, before, -1) : []),
      ...countDeltas(board, { points, seq, teamKey: new_team ? 'new' : team_key }, 1),
    ]),
  );
  const values = {
    fans: JSON.stringify(fans),
    entries: JSON.stringify(entries),
    deltas: JSON.stringify(deltas),
  };
  return part('boards', values, (v) => ({
    ctes: [
      [
        // One number for each fan whose entries' points change: who reached a score first.
        'seq',
        sql`SELECT g.id AS user_id, b.new_team_key,
                   CASE WHEN b.new_seq THEN nextval('leaderboard_reached_seq') END AS seq
        FROM jsonb_to_recordset(${v.fans}::jsonb)
          AS b(fan integer, user_id uuid, new_seq boolean, new_team_key text)
        JOIN guard g ON g.id = b.user_id`,
      ],
      [
        'entries',
        sql`INSERT INTO leaderboard_entries
          (board, user_id, points, reached_seq, reached_at, updated_at, team_key, hidden)
        SELECT b.board, g.id, b.points, coalesce(b.seq, s.seq), now(), now(),
               CASE WHEN b.new_team THEN s.new_team_key ELSE b.team_key END,
               g.banned_at IS NOT NULL
        FROM jsonb_to_recordset(${v.entries}::jsonb)
          AS b(user_id uuid, board text, points integer, seq bigint, new_team boolean,
               team_key text)
        JOIN guard g ON g.id = b.user_id
        JOIN seq s ON s.user_id = b.user_id
        ON CONFLICT (board, user_id) DO UPDATE SET
          points = excluded.points,
          reached_seq = excluded.reached_seq,
          reached_at = CASE WHEN leaderboard_entries.reached_seq = excluded.reached_seq
                            THEN leaderboard_entries.reached_at ELSE now() END,
          team_key = excluded.team_key,
          hidden = excluded.hidden,
          updated_at = now()
        RETURNING board, user_id, points, reached_seq, team_key, hidden`,
      ],
      [
        // −1 on the cells of each entry's old position, +1 on its new one,
        // merged by cell over every fan, in key order, each cell on a random
        // shard (db/queries/rank.ts).
        'counts',
        sql`${addCounts(sql`
          SELECT d.board,
                 CASE WHEN d.new_team THEN s.new_team_key ELSE d.team_key END AS team_key,
                 d.points, coalesce(d.seq, s.seq) AS seq, d.n
          FROM jsonb_to_recordset(${v.deltas}::jsonb)
            AS d(user_id uuid, board text, team_key text, new_team boolean, points integer,
                 seq bigint, n integer)
          JOIN guard g ON g.id = d.user_id
          JOIN seq s ON s.user_id = d.user_id
          WHERE g.banned_at IS NULL`)}
        RETURNING 1`,
      ],
    ],
    columns: [
      [
        'written_entries',
        sql`(SELECT coalesce(json_agg(json_build_object('board', e.board, 'points', e.points,
                'seq', e.reached_seq::text, 'team_key', e.team_key)), '[]')
         FROM entries e WHERE e.user_id = f.user_id)`,
      ],
    ],
  }));
}

/**
 * A ban hides every entry of the fan and takes each off its count cells; an
 * unban shows them and counts each again where it stands (db/queries/rank.ts).
 */
export function visibilityPart(plans: Plans): Part | undefined {
  const bans = rowsOf(plans, (plan) => (plan.ban ? [{ ban: plan.ban }] : []));
  if (bans.length === 0) return undefined;
  return part('visibility', { bans: JSON.stringify(bans) }, (v) => ({
    ctes: [
      [
        'visibility',
        sql`UPDATE leaderboard_entries e SET hidden = (b.ban = 'ban')
        FROM jsonb_to_recordset(${v.bans}::jsonb) AS b(user_id uuid, ban text)
        JOIN guard g ON g.id = b.user_id
        WHERE e.user_id = g.id AND e.hidden = (b.ban <> 'ban')
        RETURNING e.board, e.points, e.reached_seq, e.team_key, e.hidden`,
      ],
      [
        'visibility_counts',
        sql`${addCounts(
          positionsOf(sql`visibility e`, sql`CASE WHEN e.hidden THEN -1 ELSE 1 END`),
        )} RETURNING 1`,
      ],
    ],
  }));
}
