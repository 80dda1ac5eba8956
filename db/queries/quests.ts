import type { Kysely } from 'kysely';
import type { Database, StoredQuest } from '../schema.js';

export async function findUserQuests(
  db: Kysely<Database>,
  userId: string,
): Promise<Map<string, StoredQuest>> {
  const rows = await db
    .selectFrom('userQuests')
    .select(['questId', 'progress', 'target', 'status', 'completedAt'])
    .where('userId', '=', userId)
    .execute();
  return new Map(rows.map((row) => [row.questId, row]));
}
