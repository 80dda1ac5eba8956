/**
 * What a write announces and returns: the outbox (its events, the fans'
 * rank moves, one NOTIFY for the statement), the rank, the history, and the
 * state a stale write found.
 */
import { sql, type RawBuilder } from 'kysely';
import { ALL_TIME_BOARD } from '../../../schema.js';
import { notificationOf } from '../../events.js';
import { rankExpression, rankFrom } from '../../rank.js';
import { userStateQuery } from '../state.js';
import { part, rowsOf, type Part, type Plans } from './part.js';
import { ledgerArray } from './records.js';

/**
 * A fan's rank on the all-time board (`team`: on their team's) at the
 * position `n`, as of the statement's commit: ranked over the snapshot
 * (everyone as they were, without the fan's own stored entry), and, with
 * several fans, counting the other fans' moves in this statement too: their
 * stored entries ahead taken off (`moved_from`), their new entries ahead
 * added.
 */
function rankAt(
  n: 'n' | 'pos',
  team: boolean,
  many: boolean,
  previous?: RawBuilder<string>,
): RawBuilder<unknown> {
  const teamKey = team ? sql<string>`${sql.ref(`${n}.team_key`)}` : undefined;
  const points = sql.ref<number>(`${n}.points`);
  const seq = sql.ref<string>(n === 'n' ? 'n.reached_seq' : 'pos.seq');
  const position = {
    board: sql<string>`${ALL_TIME_BOARD}::text`,
    teamKey,
    points,
    seq,
    holder: sql.ref<string>('g.id'),
  };
  // From the stored entry's rank (`previous`, at `me`) when the caller has it.
  const rank =
    previous === undefined
      ? rankExpression(position)
      : rankFrom({
          ...position,
          from: { rank: previous, points: sql.ref('me.points'), seq: sql.ref('me.reached_seq') },
        });
  if (!many) return sql`(${rank})::bigint`;
  const sameTeam = (alias: string) =>
    team ? sql`AND ${sql.ref(`${alias}.team_key`)} = ${teamKey}` : sql``;
  const ahead = (alias: string) =>
    sql`(-${sql.ref(`${alias}.points`)}, ${sql.ref(`${alias}.reached_seq`)}) < (-${points}, ${seq}::bigint)`;
  return sql`((${rank})::bigint
    - (SELECT count(*) FROM moved_from o
       WHERE o.user_id <> g.id ${sameTeam('o')} AND ${ahead('o')})
    + (SELECT count(*) FROM entries w
       WHERE w.board = ${ALL_TIME_BOARD} AND w.user_id <> g.id AND NOT w.hidden
         ${sameTeam('w')} AND ${ahead('w')}))`;
}

/**
 * The outbox: the events, the fans' rank moves when their plans announce
 * them, and one NOTIFY for all of them. The previous rank is the stored
 * entry's in the same snapshot (null when the fan had none, or was on
 * another team's board).
 */
export function outboxPart(plans: Plans): Part | undefined {
  const events = rowsOf(plans, (plan) =>
    (plan.events ?? []).map((event, ord) => ({ ord, type: event.type, payload: event.payload })),
  );
  const announced = rowsOf(plans, (plan) =>
    plan.announceRanks === true && plan.boards.some((write) => write.board === ALL_TIME_BOARD)
      ? [{ team: plan.team.favoriteTeam }]
      : [],
  );
  if (events.length === 0 && announced.length === 0) return undefined;
  const announce = announced.length > 0;
  const values = { events: JSON.stringify(events), announced: JSON.stringify(announced) };
  return part(`outbox${announce ? '+ranks' : ''}`, values, (v, { many }) => {
    const dateText = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    const previous = (team: boolean) =>
      rankExpression({
        board: sql<string>`${ALL_TIME_BOARD}::text`,
        teamKey: team ? sql<string>`me.team_key` : undefined,
        points: sql.ref('me.points'),
        seq: sql.ref('me.reached_seq'),
      });
    const ranks = sql`SELECT a.fan, g.id AS user_id, m.ord, m.board, m.team,
                 m.rank::bigint AS rank, m.previous_rank::bigint AS previous_rank
        FROM jsonb_to_recordset(${v.announced}::jsonb) AS a(fan integer, user_id uuid, team text)
        JOIN guard g ON g.id = a.user_id
        JOIN entries n ON n.board = ${ALL_TIME_BOARD} AND n.user_id = g.id
        LEFT JOIN leaderboard_entries me ON me.board = ${ALL_TIME_BOARD} AND me.user_id = g.id
        CROSS JOIN LATERAL (
          SELECT 0 AS ord, 'global' AS board, NULL::text AS team,
                 ${rankAt('n', false, many, sql`pr.rank`)} AS rank, pr.rank AS previous_rank
          FROM (SELECT CASE WHEN me.user_id IS NOT NULL THEN ${previous(false)} END AS rank
                OFFSET 0) pr
          UNION ALL
          SELECT 1, 'team', a.team, ${rankAt('n', true, many, sql`pr.rank`)}, pr.rank
          FROM (SELECT CASE WHEN me.team_key = n.team_key THEN ${previous(true)} END AS rank
                OFFSET 0) pr
          WHERE n.team_key IS NOT NULL AND a.team IS NOT NULL
        ) m`;
    // With several fans: the visible all-time entries the statement moves, as
    // they were (read once, not once per fan).
    const movedFrom = sql`SELECT o.user_id, o.points, o.reached_seq, o.team_key
      FROM leaderboard_entries o JOIN entries w ON w.board = o.board AND w.user_id = o.user_id
      WHERE o.board = ${ALL_TIME_BOARD} AND NOT o.hidden`;
    return {
      ctes: [
        ...(announce && many ? ([['moved_from', movedFrom, true]] as const) : []),
        // The fans' ranks after the write (and before it), whether they moved or
        // not: the statement's result takes the all-time rank from here too.
        ...(announce ? ([['ranks', ranks, true]] as const) : []),
        [
          'events',
          sql`INSERT INTO live_events (user_id, type, payload)
          SELECT e.user_id, e.type,
            CASE WHEN e.type = 'quest_completed' AND e.payload #>> '{quest,status}' = 'completed'
                 THEN jsonb_set(e.payload, '{quest,completedAt}', to_jsonb(${dateText}))
                 ELSE e.payload END
          FROM (
            SELECT p.fan, p.ord, g.id AS user_id, p.type, p.payload
            FROM jsonb_to_recordset(${v.events}::jsonb)
              AS p(fan integer, user_id uuid, ord integer, type text, payload jsonb)
            JOIN guard g ON g.id = p.user_id
            ${
              announce
                ? sql`UNION ALL
            SELECT r.fan, 1000000 + r.ord, r.user_id, 'rank_changed',
              jsonb_build_object('board', r.board, 'team', r.team, 'rank', r.rank,
                                 'previousRank', r.previous_rank)
            FROM ranks r JOIN guard g ON g.id = r.user_id
            WHERE r.rank IS DISTINCT FROM r.previous_rank AND g.banned_at IS NULL`
                : sql``
            }
          ) e
          ORDER BY e.fan, e.ord
          RETURNING id, user_id, type, payload, created_at`,
        ],
        ['notified', notificationOf('events')],
      ],
      // A SELECT CTE runs only when read: the NOTIFY must be.
      columns: [['notified', sql`(SELECT count(*) FROM notified)`]],
    };
  });
}

/**
 * The all-time entry's rank after the write, for the fans whose plans ask:
 * the outbox's `ranks` when it has the fan's, else ranked here, from the
 * entry as written, or as stored when this write leaves it alone (rankAt).
 */
export function rankPart(plans: Plans): Part | undefined {
  if (!plans.some((plan) => plan.rank)) return undefined;
  return part('rank', {}, (_v, { ctes, many }) => {
    const stored = (column: string) =>
      sql`(SELECT ${sql.raw(column)} FROM leaderboard_entries
         WHERE board = ${ALL_TIME_BOARD} AND user_id = g.id)`;
    const position = (column: string) =>
      ctes.has('entries')
        ? sql`coalesce((SELECT ${sql.raw(column)} FROM entries
            WHERE board = ${ALL_TIME_BOARD} AND user_id = g.id), ${stored(column)})`
        : stored(column);
    const ranked = sql`(SELECT ${rankAt('pos', false, many && ctes.has('moved_from'))}
        FROM (SELECT ${position('points')} AS points, ${position('reached_seq')} AS seq,
                     ${position('reached_seq')} AS reached_seq) pos)`;
    const fromRanks = ctes.has('ranks')
      ? sql`(SELECT r.rank FROM ranks r WHERE r.user_id = g.id AND r.ord = 0)`
      : undefined;
    return {
      columns: [
        [
          'rank',
          sql`CASE WHEN g.id IS NOT NULL AND f.rank
            THEN (${fromRanks ? sql`coalesce(${fromRanks}, ${ranked})` : ranked})::text END`,
        ],
      ],
    };
  });
}

/**
 * The newest ledger rows from before the write: with the rows this write
 * inserted (ledgerPart), the history after it.
 */
export function historyPart(plans: Plans): Part | undefined {
  if (!plans.some((plan) => plan.historyLimit > 0)) return undefined;
  return part('history', {}, () => ({
    columns: [
      [
        'older_ledger',
        sql`CASE WHEN f.history_limit > 0 THEN ${ledgerArray(sql`(SELECT * FROM points_ledger
          WHERE user_id = g.id ORDER BY id DESC LIMIT f.history_limit) l`)} END`,
      ],
    ],
  }));
}

/**
 * For plans made from a cached state: when the guard matches no row, the
 * state the statement finds (the state read of state.ts), so the retry
 * needs no read of its own; null when the user is gone.
 */
export function currentStatePart(plans: Plans): Part | undefined {
  if (!plans.some((plan) => plan.returnStateOn)) return undefined;
  return part('current state', {}, (_v, { db }) => ({
    columns: [
      [
        'current_state',
        sql`CASE WHEN g.id IS NULL AND f.return_scope IS NOT NULL THEN (
          SELECT to_json(s)
          FROM (SELECT f.user_id AS user_id, f.return_scope AS scope) AS state_args
          CROSS JOIN LATERAL (${userStateQuery(
            db,
            sql.ref<string>('state_args.user_id'),
            sql.ref<string>('state_args.scope'),
          )}) s
        ) END`,
      ],
    ],
  }));
}
