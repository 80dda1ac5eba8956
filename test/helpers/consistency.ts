import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The database invariants every write must keep (docs/CONTRACT.md: Points, quests and the leaderboard; Errors), as one list
 * of human-readable violations; `[]` means consistent. Used after fuzzing,
 * faults and multi-instance races.
 */
export async function consistencyProblems(db: Kysely<Database>): Promise<string[]> {
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
      'user not onboarded but has ledger entries or quest rows',
      sql`select u.id as user_id from users u
          where u.onboarded_at is null and u.deleted_at is null and (
            exists (select 1 from points_ledger p where p.user_id = u.id)
            or exists (select 1 from user_quests q where q.user_id = u.id))`,
    ],
    [
      'onboarded user without exactly one welcome award',
      sql`select u.id as user_id from users u where u.onboarded_at is not null and
            (select count(*) from points_ledger p
              where p.user_id = u.id and p.quest_id = 'welcome') <> 1`,
    ],
    [
      'quest awarded more than once',
      sql`select user_id from points_ledger where quest_id is not null
          group by user_id, quest_id having count(*) > 1`,
    ],
    [
      'handle owned by more than one user (ignoring case)',
      sql`select min(user_id::text) as user_id from profiles where handle is not null
          group by lower(handle) having count(*) > 1`,
    ],
    [
      'a deleted account (tombstone) holds more than ledger rows',
      sql`select u.id as user_id from users u where u.deleted_at is not null and (
            u.onboarded_at is not null
            or exists (select 1 from profiles p where p.user_id = u.id)
            or exists (select 1 from user_quests q where q.user_id = u.id)
            or exists (select 1 from leaderboard_entries l where l.user_id = u.id)
            or exists (select 1 from handle_claims c where c.user_id = u.id)
            or exists (select 1 from handle_history h where h.user_id = u.id)
            or not exists (select 1 from points_ledger p where p.user_id = u.id))`,
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
      'two entries of one board share a reached_seq',
      sql`select min(user_id::text) as user_id from leaderboard_entries
          group by board, reached_seq having count(*) > 1`,
    ],
    [
      'team key differs from lower(favorite_team) on the all-time board',
      sql`select l.user_id from leaderboard_entries l join profiles p on p.user_id = l.user_id
          where l.board = 'all' and l.team_key is distinct from lower(p.favorite_team)`,
    ],
    [
      'rank_counts differ from the entries they count',
      sql`with expected as (
            select e.board, t.team_key, l.level, e.points,
                   case when l.level = 0 then 0
                        else e.reached_seq >> (32 - 8 * l.level) end as bucket,
                   count(*) as n
            from leaderboard_entries e
            cross join lateral (values (''), (e.team_key)) as t(team_key)
            cross join (values (0), (1), (2), (3)) as l(level)
            where t.team_key is not null
            group by 1, 2, 3, 4, 5),
          actual as (
            select board, team_key, level, points, bucket, sum(n) as n
            from rank_counts group by 1, 2, 3, 4, 5)
          select coalesce(e.board, a.board) || '/' || coalesce(e.team_key, a.team_key) || '/' ||
                 coalesce(e.level, a.level) || '/' || coalesce(e.points, a.points) || '/' ||
                 coalesce(e.bucket, a.bucket) as user_id
          from expected e full join actual a using (board, team_key, level, points, bucket)
          where coalesce(e.n, 0) <> coalesce(a.n, 0)`,
    ],
  ];
  const problems: string[] = [];
  for (const [label, query] of checks) {
    const { rows } = await query.execute(db);
    for (const row of rows) problems.push(`${label}: ${JSON.stringify(row)}`);
  }
  return problems;
}
