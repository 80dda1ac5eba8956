/**
 * What a write starts from: one user's state, read in one statement without
 * a lock. The same query runs alone (readUserState) and inside the write
 * statement, where a write that finds the state moved returns the state it
 * found instead (statement.ts): one definition for both.
 */
import { sql, type Expression, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Database, LedgerRow, ProfileRow, StoredQuest, UserRow } from '../../schema.js';
import { Slot, fill, type CompiledStatements } from '../../statements.js';

/** The board that keeps the balance (db/schema.ts describes board names). */
export const ALL_TIME_BOARD = 'all';

/** A user's entry on one board, as stored. */
export interface BoardEntry {
  points: number;
  /** reached_seq, a bigint as text. */
  seq: string;
  teamKey: string | null;
}

/** What a write starts from. */
export interface UserState {
  user: UserRow;
  profile: ProfileRow | undefined;
  /** The user's entries on the boards asked for, by board; no all-time entry before onboarding. */
  entries: Map<string, BoardEntry>;
  /** The balance, kept on the all-time leaderboard entry (0 before onboarding). */
  points: number;
  quests: Map<string, StoredQuest>;
  /** When the user last replaced an existing handle (handle_history kind `change`): the cooldown's start. */
  lastHandleChangeAt: Date | undefined;
}

/**
 * The state read: the user's columns, the profile and quests and entries as
 * JSON, for the user `userId` and the boards listed in the JSON array
 * `boardsJson` (both values or column references).
 */
export function userStateQuery(
  db: Kysely<Database>,
  userId: Expression<string>,
  boardsJson: Expression<string>,
) {
  return db
    .selectFrom('users as u')
    .selectAll('u')
    .select((eb) => [
      sql<ProfileJson | null>`(SELECT to_json(p) FROM profiles p WHERE p.user_id = u.id)`.as(
        'profile',
      ),
      jsonArrayFrom(
        eb
          .selectFrom('leaderboardEntries as e')
          .select(['e.board', 'e.points', sql<string>`e.reached_seq::text`.as('seq'), 'e.teamKey'])
          .whereRef('e.userId', '=', 'u.id')
          .where(
            sql<boolean>`e.board = ANY (ARRAY(SELECT jsonb_array_elements_text(${boardsJson}::jsonb)))`,
          ),
      ).as('entries'),
      jsonArrayFrom(
        eb
          .selectFrom('userQuests as q')
          .select(['q.questId', 'q.progress', 'q.target', 'q.status', 'q.completedAt'])
          .whereRef('q.userId', '=', 'u.id'),
      ).as('quests'),
      eb
        .selectFrom('handleHistory as h')
        .select('h.changedAt')
        .whereRef('h.userId', '=', 'u.id')
        .where('h.kind', '=', sql.lit('change'))
        .orderBy('h.id', 'desc')
        .limit(sql.lit(1))
        .as('lastHandleChangeAt'),
    ])
    .where('u.id', '=', userId);
}

/**
 * The user's state with their entries on `boards`, or undefined when the
 * user does not exist.
 */
export async function readUserState(
  db: Kysely<Database>,
  statements: CompiledStatements,
  userId: string,
  boards: readonly string[] = [ALL_TIME_BOARD],
): Promise<UserState | undefined> {
  const template = statements.template('user state', (compiler) =>
    userStateQuery(
      compiler,
      arg((a) => a.userId),
      arg((a) => a.boards),
    ).compile(),
  );
  const {
    rows: [row],
  } = await db.executeQuery<StateRow>(fill(template, { userId, boards: JSON.stringify(boards) }));
  return row && stateFromRow(row);
}

/** A bound argument of the state read, filled from each call's arguments. */
function arg(read: (args: { userId: string; boards: string }) => string): Expression<string> {
  return sql<string>`${new Slot(read)}`;
}

/**
 * The state read's row. Read alone, the user's timestamps are dates; inside
 * the write statement the whole row is JSON, where timestamps are text.
 */
export type StateRow = Omit<UserRow, 'onboardedAt' | 'createdAt' | 'updatedAt' | 'deletedAt'> & {
  onboardedAt: Date | string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  deletedAt: Date | string | null;
  profile: ProfileJson | null;
  entries: Array<BoardEntry & { board: string }>;
  quests: QuestJson[];
  lastHandleChangeAt: Date | string | null;
};

export function stateFromRow(row: StateRow): UserState {
  const { profile, entries, quests, lastHandleChangeAt, ...user } = row;
  const byBoard = new Map(
    entries.map(({ board, ...entry }) => [board, entry satisfies BoardEntry]),
  );
  return {
    lastHandleChangeAt: lastHandleChangeAt === null ? undefined : toDate(lastHandleChangeAt),
    user: {
      ...user,
      onboardedAt: toDateOrNull(user.onboardedAt),
      createdAt: toDate(user.createdAt),
      updatedAt: toDate(user.updatedAt),
      deletedAt: toDateOrNull(user.deletedAt),
    },
    profile: profile === null ? undefined : profileFromJson(profile),
    entries: byBoard,
    points: byBoard.get(ALL_TIME_BOARD)?.points ?? 0,
    quests: new Map(quests.map((quest) => [quest.questId, questFromJson(quest)])),
  };
}

// Rows built as JSON in SQL carry timestamps as text.

export type ProfileJson = Omit<ProfileRow, 'createdAt' | 'updatedAt'> & {
  createdAt: string;
  updatedAt: string;
};

export type LedgerJson = Omit<LedgerRow, 'createdAt'> & { createdAt: string };

export type QuestJson = Omit<StoredQuest, 'completedAt'> & { completedAt: string | null };

export function profileFromJson(json: ProfileJson): ProfileRow {
  return { ...json, createdAt: new Date(json.createdAt), updatedAt: new Date(json.updatedAt) };
}

export function ledgerFromJson(json: LedgerJson): LedgerRow {
  return { ...json, createdAt: new Date(json.createdAt) };
}

export function questFromJson(json: QuestJson): StoredQuest {
  return { ...json, completedAt: toDateOrNull(json.completedAt) };
}

const toDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));
const toDateOrNull = (value: Date | string | null): Date | null =>
  value === null ? null : toDate(value);
