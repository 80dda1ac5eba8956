import { sql, type Kysely } from 'kysely';
import { rebuildRankCounts } from '../db/queries/rank.js';
import type { Database } from '../db/schema.js';

/**
 * Seeds N onboarded users inside the database (generate_series, no row
 * crosses the wire), consistent with every invariant the service keeps, so a
 * service started on the database serves them as if they had onboarded
 * through it:
 *
 * - identity (issuer, `seed-<g>`) for g = 1…N; the user id is derived from
 *   (issuer, g), so every table is one set-based INSERT without a join;
 * - profile: name `Fan <g>`, handle `seed_<g>` (held in handle_claims, set
 *   once in handle_history); a favorite team for 24 of 25
 *   users (22 teams, `Team 1`…`Team 22`); a rival team for one in three; all
 *   eight fields for one in 21 (those with a team);
 * - quest states, ledger rows (one per completed quest, `balanceAfter` the
 *   running sum) and the all-time leaderboard entry (points = balance):
 *   welcome 100 + handle 25 + team 25 + rival 25 + complete profile 100, so
 *   scores take five values and tie groups are huge, as quests make them;
 * - reached_seq in onboarding order (g), taken from the sequence so later
 *   writes come after; team_key = lower(favorite team); rank_counts rebuilt.
 *
 * The seeded history is dated 2025-12-01 onwards (1 ms apart): its season
 * boards (2025-W49…, month 2025-12…) are not filled, so the current seasons
 * start empty, as they would for users who earned nothing this season.
 */
export interface SeedTimings {
  [table: string]: number;
}

const BASE = '2025-12-01T00:00:00Z';

/** True when (issuer, seed-1) exists already. */
export async function isSeeded(db: Kysely<Database>, issuer: string): Promise<boolean> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('issuer', '=', issuer)
    .where('subject', '=', 'seed-1')
    .executeTakeFirst();
  return row !== undefined;
}

export async function seedUsers(
  db: Kysely<Database>,
  options: {
    users: number;
    issuer: string;
    /**
     * Only users, all-time entries and rank counts: the tables a rank reads.
     * For timing ranks at sizes the full seed takes hours to write; the
     * service must not be pointed at it (no profiles, quests or ledger).
     */
    entriesOnly?: boolean;
    log?: (line: string) => void;
  },
): Promise<SeedTimings> {
  const { users: n, issuer, entriesOnly = false } = options;
  const timings: SeedTimings = {};
  const step = async (name: string, statement: ReturnType<typeof sql>) => {
    const started = performance.now();
    await statement.execute(db);
    timings[name] = (performance.now() - started) / 1000;
    options.log?.(`- ${name}: ${timings[name]!.toFixed(1)} s`);
  };
  // Per g: the user id, and the flags every table derives its rows from.
  // An RFC 4122 version-4 layout (version nibble 4, variant 8): the API's uuid schema checks it.
  const id = sql`overlay(overlay(md5(${issuer} || '/' || g) placing '4' from 13) placing '8' from 17)::uuid`;
  const team = sql`(g % 25 <> 0)`;
  const rival = sql`(g % 3 = 0)`;
  const full = sql`(g % 21 = 0 AND g % 25 <> 0)`;
  const at = sql`(${BASE}::timestamptz + g * interval '1 millisecond')`;
  const series = sql`generate_series(1, ${n}::integer) AS g`;

  await step(
    'users',
    sql`INSERT INTO users (id, issuer, subject, onboarded_at, created_at, updated_at)
        SELECT ${id}, ${issuer}, 'seed-' || g, ${at}, ${at}, ${at} FROM ${series}`,
  );
  const balance = sql`(100 + 25 + 25 * ${team}::integer + 25 * ${rival}::integer + 100 * ${full}::integer)`;
  if (!entriesOnly) await seedAccounts();
  async function seedAccounts() {
    await step(
      'profiles',
      sql`INSERT INTO profiles (user_id, name, handle, location, favorite_sport, favorite_team,
                              favorite_player, rival_team, profile_url, created_at, updated_at)
        SELECT ${id}, 'Fan ' || g, 'seed_' || g,
               CASE WHEN ${full} THEN 'City ' || (g % 50) END,
               CASE WHEN ${full} THEN 'Football' END,
               CASE WHEN ${team} THEN 'Team ' || (1 + (g * 7) % 22) END,
               CASE WHEN ${full} THEN 'Player ' || (g % 100) END,
               CASE WHEN ${rival} THEN 'Rival ' || (g % 10) END,
               CASE WHEN ${full} THEN 'https://fans.example/' || g END,
               ${at}, ${at}
        FROM ${series}`,
    );
    // Every handle is held (handle_claims) and was set once (handle_history 'first').
    await step(
      'handle claims',
      sql`INSERT INTO handle_claims (handle_key, user_id, updated_at)
        SELECT lower('seed_' || g), ${id}, ${at} FROM ${series}`,
    );
    await step(
      'handle history',
      sql`INSERT INTO handle_history (user_id, old_handle, new_handle, kind, changed_at)
        SELECT ${id}, NULL, 'seed_' || g, 'first', ${at} FROM ${series} ORDER BY g`,
    );
    // Quest order and points as src/domain/quests.ts defines them.
    const quests = sql`(VALUES
      (1, 'welcome', 100, 1), (2, 'claim_handle', 25, 1), (3, 'pick_team', 25, 1),
      (4, 'name_rival', 25, 1), (5, 'complete_profile', 100, 8)) AS q(ord, quest_id, points, target)`;
    const progress = sql`CASE q.quest_id
      WHEN 'welcome' THEN 1 WHEN 'claim_handle' THEN 1
      WHEN 'pick_team' THEN ${team}::integer WHEN 'name_rival' THEN ${rival}::integer
      ELSE 2 + ${team}::integer + ${rival}::integer + 4 * ${full}::integer END`;
    await step(
      'user quests',
      sql`INSERT INTO user_quests (user_id, quest_id, progress, target, status, completed_at, updated_at)
        SELECT ${id}, q.quest_id, ${progress}, q.target,
               CASE WHEN ${progress} >= q.target THEN 'completed' ELSE 'in_progress' END,
               CASE WHEN ${progress} >= q.target THEN ${at} END, ${at}
        FROM ${series} CROSS JOIN ${quests}`,
    );
    await step(
      'points ledger',
      sql`INSERT INTO points_ledger
          (user_id, delta, reason, quest_id, idempotency_key, balance_after, created_at)
        SELECT ${id}, q.points, 'quest_completed', q.quest_id, 'quest:' || q.quest_id,
               sum(q.points) OVER (PARTITION BY g ORDER BY q.ord), ${at}
        FROM ${series} CROSS JOIN ${quests}
        WHERE ${progress} >= q.target
        ORDER BY g, q.ord`,
    );
  }
  await step(
    'leaderboard entries',
    sql`INSERT INTO leaderboard_entries
          (board, user_id, points, reached_seq, reached_at, updated_at, team_key)
        SELECT 'all', ${id}, ${balance}, s.base + g, ${at}, ${at},
               CASE WHEN ${team} THEN lower('Team ' || (1 + (g * 7) % 22)) END
        FROM ${series}, (SELECT nextval('leaderboard_reached_seq') AS base) AS s`,
  );
  await step(
    'sequence',
    sql`SELECT setval('leaderboard_reached_seq',
                      (SELECT max(reached_seq) FROM leaderboard_entries))`,
  );
  const started = performance.now();
  await rebuildRankCounts(db);
  timings['rank counts'] = (performance.now() - started) / 1000;
  options.log?.(`- rank counts: ${timings['rank counts']!.toFixed(1)} s`);
  // VACUUM sets the visibility map (as autovacuum would on tables this static),
  // so index-only scans need no heap visits, and ANALYZE gives the planner sizes.
  await step('vacuum analyze', sql`VACUUM ANALYZE`);
  return timings;
}
