import type { Kysely } from 'kysely';
import type { StoredQuest } from '../../src/domain/quests.js';
import type { Database } from '../schema.js';

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

/** Writes quest states in one statement; `completedAt`, once set, is never moved. */
export async function saveUserQuests(
  trx: Kysely<Database>,
  userId: string,
  quests: readonly StoredQuest[],
): Promise<void> {
  if (quests.length === 0) return;
  const now = new Date();
  await trx
    .insertInto('userQuests')
    .values(quests.map((quest) => ({ userId, ...quest, updatedAt: now })))
    .onConflict((oc) =>
      oc.columns(['userId', 'questId']).doUpdateSet((eb) => ({
        progress: eb.ref('excluded.progress'),
        target: eb.ref('excluded.target'),
        status: eb.ref('excluded.status'),
        completedAt: eb.fn.coalesce('userQuests.completedAt', 'excluded.completedAt'),
        updatedAt: now,
      })),
    )
    .execute();
}
