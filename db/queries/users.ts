import type { Kysely } from 'kysely';
import type { Database, ProfileRow, UserRow } from '../schema.js';

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

export function findUser(db: Kysely<Database>, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
}

export function findProfile(db: Kysely<Database>, userId: string): Promise<ProfileRow | undefined> {
  return db.selectFrom('profiles').selectAll().where('userId', '=', userId).executeTakeFirst();
}
