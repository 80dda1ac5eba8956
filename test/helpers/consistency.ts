import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { teamKey } from '../../db/team-key.js';

/**
 * The database invariants every write must keep (docs/CONTRACT.md: Points, quests and the leaderboard; Errors), as one list
 * of human-readable violations; `[]` means consistent. Used after fuzzing,
 * faults and multi-instance races.
 */
export async function consistencyProblems(
  db: Kysely<Database>,
  options: { only?: RegExp } = {},
): Promise<string[]> {
  const checks: Array<[string, ReturnType<typeof sql<{ userId: string }>>]> = [
    [
      'leaderboard balance differs from the ledger sum',
      sql`select l.user_id from leaderboard_entries l
          left join (select user_id, sum(delta) as total from points_ledger group by user_id) p
            on p.user_id = l.user_id
          where l.board = 'all' and l.points <> coalesce(p.total, 0)`,
    ],
    [
      'onboarded user without a leaderboard entry',
      sql`select u.id as user_id from users u
          where u.onboarded_at is not null
            and not exists (select 1 from leaderboard_entries l
                            where l.user_id = u.id and l.board = 'all')`,
    ],
    [
      'user not onboarded but has a leaderboard entry',
      sql`select l.user_id from leaderboard_entries l join users u on u.id = l.user_id
          where u.onboarded_at is null`,
    ],
    [
      // Events award before onboarding (docs/ACTIVITY.md); profile quests never do.
      'user not onboarded but has a profile quest row or award',
      sql`select u.id as user_id from users u
          where u.onboarded_at is null and u.deleted_at is null and exists (
            select 1 from catalog_definitions d
            where d.kind = 'quest'
              and d.definition -> 'goal' ->> 'kind' in ('onboarded', 'field_set', 'fields_filled')
              and (exists (select 1 from user_quests q
                           where q.user_id = u.id and q.quest_id = d.key)
                   or exists (select 1 from points_ledger p
                              where p.user_id = u.id and p.quest_id = d.key)))`,
    ],
    [
      'a ledger entry whose balanceAfter is not the running sum of the deltas',
      sql`select user_id from (
            select user_id, balance_after,
                   sum(delta) over (partition by user_id order by id) as running
            from points_ledger) x
          where balance_after <> running`,
    ],
    [
      'a recorded event without its award, or a reversed one without its reversal',
      sql`select a.user_id from activity_events a
          where a.points <> 0 and (
            not exists (select 1 from points_ledger l where l.user_id = a.user_id
                          and l.idempotency_key = 'event:' || a.client_id || ':' || a.event_id
                          and l.delta = a.points)
            or (a.reversed_at is not null) <> exists (
                 select 1 from points_ledger l where l.user_id = a.user_id
                   and l.idempotency_key = 'reversal:' || a.client_id || ':' || a.event_id
                   and l.delta = -a.points))`,
    ],
    [
      // Every event names a version of its type that exists: the cap check below reads the
      // caps of those versions, and an event under no version must not pass it unseen.
      'an event recorded under an event type version that does not exist',
      sql`select a.user_id from activity_events a
          where not exists (select 1 from catalog_definitions d
                            where d.kind = 'event_type' and d.key = a.type
                              and d.version = a.type_version)`,
    ],
    [
      // Units of a type one fan recorded (not reversed) in a UTC day or ISO week, against the
      // type's cap (docs/ACTIVITY.md, Caps): the largest cap among the versions the window's
      // events were recorded under, so a cap an operator raised later is no violation. Every
      // event of the window counts, also one whose version is missing (a left join).
      'a fan has recorded more of an event type in a day or week than its cap',
      sql`select a.user_id from activity_events a
          left join catalog_definitions d on d.kind = 'event_type' and d.key = a.type
                                         and d.version = a.type_version
          cross join (values ('day'), ('week')) as w(span)
          where a.reversed_at is null
          group by a.user_id, a.type, w.span, date_trunc(w.span, a.occurred_at at time zone 'UTC')
          having max((d.definition -> 'caps' ->> w.span)::integer) is not null
             and sum(a.value) > max((d.definition -> 'caps' ->> w.span)::integer)`,
    ],
    [
      'onboarded user without exactly one welcome award',
      sql`select u.id as user_id from users u where u.onboarded_at is not null and
            (select count(*) from points_ledger p
              where p.user_id = u.id and p.quest_id = 'welcome') <> 1`,
    ],
    [
      'quest tier awarded more than once in one period',
      sql`select user_id from points_ledger where quest_id is not null
          group by user_id, quest_id, coalesce(source_detail ->> 'period', ''),
                   coalesce(source_detail ->> 'tier', '1')
          having count(*) > 1`,
    ],
    [
      'handle owned by more than one user (ignoring case)',
      sql`select min(user_id::text) as user_id from profiles where handle is not null
          group by lower(handle) having count(*) > 1`,
    ],
    [
      'a deleted account (tombstone) holds more than ledger and event rows',
      sql`select u.id as user_id from users u where u.deleted_at is not null and (
            u.onboarded_at is not null
            or exists (select 1 from profiles p where p.user_id = u.id)
            or exists (select 1 from user_quests q where q.user_id = u.id)
            or exists (select 1 from leaderboard_entries l where l.user_id = u.id)
            or exists (select 1 from handle_claims c where c.user_id = u.id)
            or exists (select 1 from handle_history h where h.user_id = u.id)
            or not (exists (select 1 from points_ledger p where p.user_id = u.id)
                    or exists (select 1 from activity_events a where a.user_id = u.id)))`,
    ],
    [
      'profile handle without its held claim',
      sql`select p.user_id from profiles p where p.handle is not null and not exists (
            select 1 from handle_claims c where c.handle_key = lower(p.handle)
              and c.user_id = p.user_id and c.reserved_until is null)`,
    ],
    [
      'held claim whose holder does not have that handle',
      sql`select c.user_id from handle_claims c where c.reserved_until is null and not exists (
            select 1 from profiles p where p.user_id = c.user_id
              and lower(p.handle) = c.handle_key)`,
    ],
    [
      'the newest ledger entry does not carry the balance',
      sql`select l.user_id from leaderboard_entries l
          join lateral (select balance_after from points_ledger p where p.user_id = l.user_id
                        order by p.id desc limit 1) last on true
          where l.board = 'all' and last.balance_after <> l.points`,
    ],
    [
      'hidden entries do not match the ban',
      sql`select l.user_id from leaderboard_entries l join users u on u.id = l.user_id
          where l.hidden <> (u.banned_at is not null)`,
    ],
    [
      'two entries of one board share a reached_seq',
      sql`select min(user_id::text) as user_id from leaderboard_entries
          group by board, reached_seq having count(*) > 1`,
    ],
    [
      'rank_counts differ from the entries they count',
      // Written apart from db/queries/rank.ts on purpose: a wrong key there shows up here.
      sql`with expected as (
            select e.board, t.team_key, l.level,
                   case when l.level < 0 then e.points / (1 << (-8 * l.level))
                        else e.points end as points,
                   case when l.level <= 0 then 0
                        else e.reached_seq / (1::bigint << (32 - 8 * l.level)) end as bucket,
                   count(*) as n
            from leaderboard_entries e
            cross join lateral (values (''), (e.team_key)) as t(team_key)
            cross join (values (-3), (-2), (-1), (0), (1), (2), (3)) as l(level)
            -- A banned fan's (hidden) entries are counted nowhere.
            where t.team_key is not null and not e.hidden
            group by 1, 2, 3, 4, 5),
          -- Levels -3…0 keep no first cell of a parent (key % 256 = 0): no rank reads it.
          stored as (
            select * from expected where level > 0 or points % 256 <> 0),
          actual as (
            select board, team_key, level, points, bucket, sum(n) as n
            from rank_counts group by 1, 2, 3, 4, 5)
          select coalesce(e.board, a.board) || '/' || coalesce(e.team_key, a.team_key) || '/' ||
                 coalesce(e.level, a.level) || '/' || coalesce(e.points, a.points) || '/' ||
                 coalesce(e.bucket, a.bucket) as user_id
          from stored e full join actual a using (board, team_key, level, points, bucket)
          where coalesce(e.n, 0) <> coalesce(a.n, 0)`,
    ],
  ];
  const problems: string[] = [];
  for (const [label, query] of checks) {
    if (options.only && !options.only.test(label)) continue;
    const { rows } = await query.execute(db);
    for (const row of rows) problems.push(`${label}: ${JSON.stringify(row)}`);
  }
  // The team key is computed in TypeScript (db/team-key.ts), so this check is too.
  const label = 'team key differs from teamKey(favorite_team) on the all-time board';
  if (!options.only || options.only.test(label)) {
    const { rows } = await sql<{ userId: string; key: string | null; team: string | null }>`
      select l.user_id as "userId", l.team_key as "key", p.favorite_team as "team"
      from leaderboard_entries l join profiles p on p.user_id = l.user_id
      where l.board = 'all'`.execute(db);
    for (const row of rows) {
      const expected = row.team === null ? null : teamKey(row.team);
      if (row.key !== expected) problems.push(`${label}: ${JSON.stringify(row)}`);
    }
  }
  return problems;
}

/**
 * Every shown entry's rank on `board` from a full sort in SQL (ROW_NUMBER over
 * the rank order; banned fans' hidden entries left out), on the whole board
 * and among its team's fans: what every rank
 * the service serves must equal.
 */
export async function fullSortRanks(
  db: Kysely<Database>,
  board = 'all',
): Promise<Map<string, { teamKey: string | null; global: number; team: number | null }>> {
  const { rows } = await sql<{
    userId: string;
    teamKey: string | null;
    globalRank: string;
    teamRank: string | null;
  }>`
    SELECT user_id, team_key,
           ROW_NUMBER() OVER (ORDER BY points DESC, reached_seq, user_id)::text AS global_rank,
           CASE WHEN team_key IS NOT NULL THEN ROW_NUMBER() OVER (
             PARTITION BY team_key ORDER BY points DESC, reached_seq, user_id)::text END AS team_rank
    FROM leaderboard_entries WHERE board = ${board} AND NOT hidden`.execute(db);
  return new Map(
    rows.map((row) => [
      row.userId,
      {
        teamKey: row.teamKey,
        global: Number(row.globalRank),
        team: row.teamRank === null ? null : Number(row.teamRank),
      },
    ]),
  );
}
