import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Team keys move from SQL lower() to the fold of db/team-key.ts (default
 * ignorables removed, NFKC, case fold), so "Arsenal\u200B", "ARSENAL" and
 * "Ａｒｓｅｎａｌ" are one team board. The fold runs in TypeScript, so each
 * distinct stored key is folded here (a copy of the fold as it was on this
 * day) and rewritten where it changes; folding the lower-cased key gives the
 * same result as folding the name. When any key changed, the team rows of
 * rank_counts are counted again from the entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ key: string }>`
    SELECT DISTINCT team_key AS key FROM leaderboard_entries WHERE team_key IS NOT NULL`.execute(
    db,
  );
  let changed = 0;
  for (const { key } of rows) {
    const folded = fold(key);
    if (folded === key) continue;
    await sql`UPDATE leaderboard_entries SET team_key = ${folded} WHERE team_key = ${key}`.execute(
      db,
    );
    changed += 1;
  }
  if (changed === 0) return;
  await sql`DELETE FROM rank_counts WHERE team_key <> ''`.execute(db);
  await sql`
    INSERT INTO rank_counts (board, team_key, level, points, bucket, shard, n)
    SELECT e.board, e.team_key, l.level, e.points,
           CASE WHEN l.level = 0 THEN 0 ELSE e.reached_seq >> (32 - 8 * l.level) END, 0, count(*)
    FROM leaderboard_entries e
    CROSS JOIN (VALUES (0), (1), (2), (3)) AS l(level)
    WHERE e.team_key IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5`.execute(db);
}

/**
 * Nothing to undo: a folded key is already lower-case, so the code before
 * this migration finds every board whose team name it would have matched.
 */
export async function down(): Promise<void> {}

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

function fold(team: string): string {
  return team
    .replace(DEFAULT_IGNORABLE, '')
    .normalize('NFKC')
    .toUpperCase()
    .toLowerCase()
    .normalize('NFKC')
    .replace(DEFAULT_IGNORABLE, '')
    .trim();
}
