import type { Kysely } from 'kysely';
import { AppError } from '../../src/errors.js';
import type { Database, ProfileFields, ProfileRow, UserRow } from '../schema.js';
import { isUniqueViolation } from './errors.js';

/**
 * The user for an (issuer, subject) pair, created on first sight. Race-free:
 * two first requests at once both end with the one row the unique constraint
 * let in.
 */
export async function ensureUser(
  db: Kysely<Database>,
  issuer: string,
  subject: string,
): Promise<UserRow> {
  const existing = await findUserByIdentity(db, issuer, subject);
  if (existing) return existing;
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
 * Locks the user's row for the rest of the transaction and reads its profile.
 * Every write path takes this lock first, so one user's writes (profile, quests,
 * ledger, leaderboard) never interleave.
 */
export async function lockUser(
  trx: Kysely<Database>,
  userId: string,
): Promise<{ user: UserRow; profile: ProfileRow | undefined }> {
  const user = await trx
    .selectFrom('users')
    .selectAll()
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  if (!user) throw new AppError('NOT_FOUND', 'The user does not exist');
  const profile = await findProfile(trx, userId);
  return { user, profile };
}

export function findUser(db: Kysely<Database>, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

export function findProfile(db: Kysely<Database>, userId: string): Promise<ProfileRow | undefined> {
  return db.selectFrom('profiles').selectAll().where('userId', '=', userId).executeTakeFirst();
}

/**
 * Writes the whole profile (insert on first write) and moves `updatedAt`. A
 * handle another user holds, in any letter case, is a 409 HANDLE_TAKEN decided
 * by the database's unique index, so concurrent claims cannot both win.
 */
export async function saveProfile(
  trx: Kysely<Database>,
  userId: string,
  fields: ProfileFields,
): Promise<ProfileRow> {
  const now = new Date();
  try {
    return await trx
      .insertInto('profiles')
      .values({ userId, ...fields, createdAt: now, updatedAt: now })
      .onConflict((oc) => oc.column('userId').doUpdateSet({ ...fields, updatedAt: now }))
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error, 'profiles_handle_lower_key')) {
      throw new AppError('HANDLE_TAKEN', `The handle "${fields.handle}" is taken`, {
        issues: [{ path: 'handle', message: 'This handle is taken' }],
      });
    }
    throw error;
  }
}

/** Marks the user onboarded once; later calls leave the first time in place. */
export async function markOnboarded(trx: Kysely<Database>, user: UserRow): Promise<UserRow> {
  if (user.onboardedAt) return user;
  const now = new Date();
  return trx
    .updateTable('users')
    .set({ onboardedAt: now, updatedAt: now })
    .where('id', '=', user.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
