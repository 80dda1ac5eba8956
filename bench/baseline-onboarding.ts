/**
 * Onboarding's statements in the bare baseline (bench/baseline.ts), each
 * written plainly and run separately in the caller's transaction: the
 * onboarded flag, the all-time leaderboard upsert, the quest sync (quest read,
 * balance update, ledger insert, one upsert per quest), the rank (the plain
 * O(rank) count) and the history.
 */
import type pg from 'pg';
import type { ProfileFields } from '../db/schema.js';
import { parseCatalog, type Catalog } from '../src/domain/catalog.js';
import { currentPeriods } from '../src/domain/periods.js';
import { instanceKey, planQuestSync, type StoredQuest } from '../src/domain/quests.js';

/** Reads quests, awards new completions, upserts each changed quest: separate statements. */
export async function syncQuests(
  client: pg.PoolClient,
  userId: string,
  profile: ProfileFields,
): Promise<{ points: number; plan: ReturnType<typeof planQuestSync>; awarded: number }> {
  const now = new Date();
  const { rows } = await client.query(
    `SELECT quest_id, period, progress, target, tiers_reached, status, completed_at
     FROM user_quests WHERE user_id = $1 AND period = ANY($2)`,
    [userId, currentPeriods(now)],
  );
  const stored = new Map<string, StoredQuest>(
    rows.map((r: Record<string, unknown>) => [
      instanceKey(r.quest_id as string, r.period as string),
      {
        questId: r.quest_id as string,
        period: r.period as string,
        progress: r.progress as number,
        target: r.target as number,
        tiersReached: r.tiers_reached as number,
        status: r.status as StoredQuest['status'],
        completedAt: r.completed_at as Date | null,
      },
    ]),
  );
  const plan = planQuestSync(await catalog(client), { profile, onboarded: true }, stored, now);
  const reached = plan.reached.filter((tier) => tier.points !== 0);
  const awarded = reached.reduce((sum, tier) => sum + tier.points, 0);
  let points: number;
  if (awarded > 0) {
    const updated = await client.query<{ points: number }>(
      `UPDATE leaderboard_entries SET points = points + $2,
         reached_seq = nextval('leaderboard_reached_seq'), reached_at = now(), updated_at = now()
        WHERE board = 'all' AND user_id = $1 RETURNING points`,
      [userId, awarded],
    );
    points = updated.rows[0]!.points;
    let balance = points - awarded;
    const params: unknown[] = [userId];
    const tuples = reached.map((tier) => {
      balance += tier.points;
      params.push(tier.points, tier.instance.quest.definition.key, tier.key, balance);
      const n = params.length;
      return `($1, $${n - 3}, 'quest_completed', $${n - 2}, $${n - 1}, $${n})`;
    });
    await client.query(
      `INSERT INTO points_ledger (user_id, delta, reason, quest_id, idempotency_key, balance_after)
       VALUES ${tuples.join(', ')}`,
      params,
    );
  } else {
    const current = await client.query<{ points: number }>(
      `SELECT points FROM leaderboard_entries WHERE board = 'all' AND user_id = $1`,
      [userId],
    );
    points = current.rows[0]?.points ?? 0;
  }
  for (const quest of plan.writes) {
    await client.query(
      `INSERT INTO user_quests (user_id, quest_id, period, progress, target, tiers_reached, status,
                                completed_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
       ON CONFLICT (user_id, quest_id, period) DO UPDATE SET progress = excluded.progress,
         target = excluded.target, tiers_reached = excluded.tiers_reached, status = excluded.status,
         completed_at = coalesce(user_quests.completed_at, excluded.completed_at), updated_at = now()`,
      [
        userId,
        quest.questId,
        quest.period,
        quest.progress,
        quest.target,
        quest.tiersReached,
        quest.status,
        quest.completedAt,
      ],
    );
  }
  return { points, plan, awarded };
}

/**
 * The catalog in force, read once (the bench never changes it), on the
 * caller's connection: a read from the pool while every connection is held
 * by a request waiting for it would never get one.
 */
let catalogRead: Promise<Catalog> | undefined;
function catalog(client: pg.PoolClient): Promise<Catalog> {
  catalogRead ??= client
    .query(
      `SELECT DISTINCT ON (kind, key) kind, key, version, definition, retired
       FROM catalog_definitions ORDER BY kind, key, version DESC`,
    )
    .then(({ rows }) => parseCatalog(0, rows).catalog);
  return catalogRead;
}

/** Onboards `userId` with profile `next` (already saved): what the answer is built from. */
export async function onboardingStatements(
  client: pg.PoolClient,
  userId: string,
  next: ProfileFields,
) {
  const { rows: users } = await client.query(
    `UPDATE users SET onboarded_at = coalesce(onboarded_at, now()),
       updated_at = CASE WHEN onboarded_at IS NULL THEN now() ELSE updated_at END
     WHERE id = $1 RETURNING *`,
    [userId],
  );
  const user = users[0] as Record<string, unknown>;
  await client.query(
    `INSERT INTO leaderboard_entries (board, user_id, points, reached_seq, reached_at, updated_at, team_key)
     VALUES ('all', $1, 0, nextval('leaderboard_reached_seq'), now(), now(), lower($2))
     ON CONFLICT (board, user_id) DO UPDATE SET team_key = excluded.team_key`,
    [userId, next.favoriteTeam],
  );
  const { points, plan, awarded } = await syncQuests(client, userId, next);
  const { rows: ranked } = await client.query(
    `SELECT e.user_id, e.points,
            (SELECT count(*) + 1 FROM leaderboard_entries a
              WHERE a.board = 'all'
                AND (-a.points, a.reached_seq, a.user_id) < (-e.points, e.reached_seq, e.user_id)) AS rank
       FROM leaderboard_entries e WHERE e.board = 'all' AND e.user_id = $1`,
    [userId],
  );
  const { rows: ledger } = await client.query(
    'SELECT * FROM points_ledger WHERE user_id = $1 ORDER BY id DESC LIMIT 20',
    [userId],
  );
  return {
    user,
    points,
    plan,
    awarded,
    rank: ranked[0] as Record<string, unknown>,
    ledger,
  };
}
