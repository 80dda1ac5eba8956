import type { Kysely } from 'kysely';
import { questKey, type Database, type StoredQuest, type StoredStreak } from '../schema.js';

/**
 * The user's stored quests, by questKey: of the periods listed ('' for
 * one-time quests), or every period (the account export).
 */
export async function findUserQuests(
  db: Kysely<Database>,
  userId: string,
  periods?: readonly string[],
): Promise<Map<string, StoredQuest>> {
  let query = db
    .selectFrom('userQuests')
    .select(['questId', 'period', 'progress', 'target', 'tiersReached', 'status', 'completedAt'])
    .where('userId', '=', userId);
  if (periods) query = query.where('period', 'in', [...periods]);
  const rows = await query.orderBy('questId').orderBy('period').execute();
  return new Map(rows.map((row) => [questKey(row.questId, row.period), row]));
}

/** The user's streaks, by streak id. */
export async function findUserStreaks(
  db: Kysely<Database>,
  userId: string,
): Promise<Map<string, StoredStreak>> {
  const rows = await db
    .selectFrom('userStreaks')
    .select(['streakId', 'current', 'best', 'lastPeriodStart', 'runStartedAt'])
    .where('userId', '=', userId)
    .execute();
  return new Map(rows.map((row) => [row.streakId, row]));
}
