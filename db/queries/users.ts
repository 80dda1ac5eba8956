import { sql, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { handleTakenError } from '../../src/domain/handles.js';
import { PROFILE_FIELDS } from '../../src/domain/profile.js';
import type { StoredQuest } from '../../src/domain/quests.js';
import { preparedStatement } from '../prepared.js';
import { AppError } from '../../src/errors.js';
import type { Database, ProfileFields, ProfileRow, UserRow } from '../schema.js';
import { isUniqueViolation } from './errors.js';

/**
 * The user for an (issuer, subject) pair, created on first sight. Race-free:
 * two first requests at once both end with the one row the unique constraint
 * let in. The insert is tried first: callers cache known identities
 * (src/auth/user-ids.ts), so a lookup that reaches here is usually a new user.
 */
export async function ensureUser(
  db: Kysely<Database>,
  issuer: string,
  subject: string,
): Promise<UserRow> {
  const inserted = await db
    .insertInto('users')
    .values({ issuer, subject })
    .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
    .returningAll()
    .executeTakeFirst();
  return inserted ?? (await findUserByIdentity(db, issuer, subject))!;
}

export function findUserByIdentity(
  db: Kysely<Database>,
  issuer: string,
  subject: string,
): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst();
}

/**
 * Locks the user's row for the rest of the transaction and returns it with the
 * transaction's clock (`now()`, the same instant every statement of the
 * transaction writes). Every write path takes this lock first, so one user's
 * writes (profile, quests, ledger, leaderboard) never interleave.
 *
 * The rest of the user's state is read by a separate statement
 * (`findUserState`) on purpose: under READ COMMITTED, a statement that waited
 * for this lock still sees the other tables as they were when it started, so
 * reading them in the locking statement could miss the previous writer's work.
 */
export async function lockUser(
  trx: Kysely<Database>,
  userId: string,
): Promise<{ user: UserRow; transactionTime: Date }> {
  const [row] = await lockUserStatement(trx, userId);
  if (!row) throw new AppError('NOT_FOUND', 'The user does not exist');
  const { transactionTime, ...user } = row;
  return { user, transactionTime };
}

/** What a write needs besides the user row: profile, balance and stored quest states. */
export interface UserState {
  profile: ProfileRow | undefined;
  /** The balance on the leaderboard row; 0 before onboarding. */
  points: number;
  hasLeaderboardEntry: boolean;
  quests: Map<string, StoredQuest>;
}

const lockUserStatement = preparedStatement((db, userId: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .select(sql<Date>`now()`.as('transactionTime'))
    .where('id', '=', userId)
    .forUpdate(),
);

const userStateStatement = preparedStatement((db, userId: string) =>
  db
    .selectFrom('users as u')
    .leftJoin('profiles as p', 'p.userId', 'u.id')
    .leftJoin('leaderboardEntries as e', 'e.userId', 'u.id')
    .select([
      'p.userId',
      'p.name',
      'p.handle',
      'p.location',
      'p.favoriteSport',
      'p.favoriteTeam',
      'p.favoritePlayer',
      'p.rivalTeam',
      'p.profileUrl',
      'p.createdAt',
      'p.updatedAt',
      'e.points',
    ])
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('userQuests as q')
          .select(['q.questId', 'q.progress', 'q.target', 'q.status', 'q.completedAt'])
          .whereRef('q.userId', '=', 'u.id'),
      ).as('quests'),
    )
    .where('u.id', '=', userId),
);

/** Profile, balance and quests in one round trip. Call it after `lockUser`. */
export async function findUserState(trx: Kysely<Database>, userId: string): Promise<UserState> {
  const [row] = await userStateStatement(trx, userId);
  if (!row) throw new AppError('NOT_FOUND', 'The user does not exist');
  const { points, quests, ...profile } = row;
  return {
    profile:
      profile.userId === null ? undefined : ({ ...profile, userId: profile.userId } as ProfileRow),
    points: points ?? 0,
    hasLeaderboardEntry: points !== null,
    quests: new Map(
      quests.map((quest) => [
        quest.questId,
        {
          ...quest,
          // JSON carries timestamps as text.
          completedAt: quest.completedAt === null ? null : new Date(quest.completedAt),
        },
      ]),
    ),
  };
}

export function findUser(db: Kysely<Database>, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

export function findProfile(db: Kysely<Database>, userId: string): Promise<ProfileRow | undefined> {
  return db.selectFrom('profiles').selectAll().where('userId', '=', userId).executeTakeFirst();
}

// Every field is always written, so the statement has one shape.
const saveProfileStatement = preparedStatement(
  (db, userId: string, ...values: (string | null)[]) => {
    const fields = Object.fromEntries(
      PROFILE_FIELDS.map((field, index) => [field, values[index] ?? null]),
    ) as unknown as ProfileFields;
    return db
      .insertInto('profiles')
      .values({ userId, ...fields, createdAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
      .onConflict((oc) =>
        oc.column('userId').doUpdateSet({ ...fields, updatedAt: sql<Date>`now()` }),
      )
      .returningAll();
  },
);

/**
 * Writes the whole profile (insert on first write) and moves `updatedAt` to
 * the transaction's time. A handle another user holds, in any letter case, is
 * a 409 HANDLE_TAKEN decided by the database's unique index, so concurrent
 * claims cannot both win.
 */
export async function saveProfile(
  trx: Kysely<Database>,
  userId: string,
  fields: ProfileFields,
): Promise<ProfileRow> {
  try {
    const [row] = await saveProfileStatement(
      trx,
      userId,
      ...PROFILE_FIELDS.map((field) => fields[field]),
    );
    return row!;
  } catch (error) {
    if (isUniqueViolation(error, 'profiles_handle_lower_key')) {
      throw handleTakenError(fields.handle ?? '');
    }
    throw error;
  }
}

/** Marks the user onboarded once; later calls leave the first time in place. */
export async function markOnboarded(trx: Kysely<Database>, user: UserRow): Promise<UserRow> {
  if (user.onboardedAt) return user;
  const [row] = await markOnboardedStatement(trx, user.id);
  return row!;
}

const markOnboardedStatement = preparedStatement((db, userId: string) =>
  db
    .updateTable('users')
    .set({ onboardedAt: sql<Date>`now()`, updatedAt: sql<Date>`now()` })
    .where('id', '=', userId)
    .returningAll(),
);
