import { sql, type Kysely, type QueryCreator } from 'kysely';
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

/**
 * The statement that writes quest states (run it, or use it as a CTE);
 * `completedAt`, once set, is never moved. Times are the transaction's.
 */
export function upsertUserQuests(
  db: QueryCreator<Database>,
  userId: string,
  quests: readonly StoredQuest[],
) {
  return db
    .insertInto('userQuests')
    .values(
      quests.map((quest) => ({
        userId,
        ...quest,
        // The sync plan marks a completion; the time is the transaction's.
        completedAt: quest.completedAt === null ? null : sql<Date>`now()`,
        updatedAt: sql<Date>`now()`,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['userId', 'questId']).doUpdateSet((eb) => ({
        progress: eb.ref('excluded.progress'),
        target: eb.ref('excluded.target'),
        status: eb.ref('excluded.status'),
        completedAt: eb.fn.coalesce('userQuests.completedAt', 'excluded.completedAt'),
        updatedAt: sql<Date>`now()`,
      })),
    );
}
