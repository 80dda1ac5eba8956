import type { Kysely } from 'kysely';
import { v7 as timeOrderedUuid } from 'uuid';
import type { Database, ProfileRow, UserRow } from '../schema.js';

/**
 * The user for an (issuer, subject) pair, created on first sight. Race-free:
 * two first requests at once both end with the one row the unique constraint
 * let in. The insert is tried first: callers cache known identities
 * (src/auth/user-ids.ts), so a lookup that reaches here is usually a new user.
 *
 * An insert that conflicts saw a row that may be gone by the time the lookup
 * reads it: the account was deleted in between (DELETE /api/user racing the
 * identity's other requests). The identity is then new again, and the insert
 * is tried again. Each further round needs another account of this identity
 * to be created and deleted between two statements, so it ends.
 *
 * The id is a UUIDv7 (time-ordered), not the column's random default: every
 * index keyed by user id (users, profiles, quests, ledger, board entries,
 * events) then takes a new user's rows at its right edge, on pages already in
 * memory, instead of on a random leaf of a table of millions. First-time
 * onboarding at 10M users cost 1.9–2.7× its time at 10k with random ids and
 * 1.0–1.4× with these (docs/SCALING.md). Ids then tell when an account was
 * created, to the millisecond (docs/decisions/0010-uuidv7-user-ids.md).
 */
export async function ensureUser(
  db: Kysely<Database>,
  issuer: string,
  subject: string,
): Promise<UserRow> {
  for (;;) {
    const inserted = await db
      .insertInto('users')
      .values({ id: timeOrderedUuid(), issuer, subject })
      .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
      .returningAll()
      .executeTakeFirst();
    const user = inserted ?? (await findUserByIdentity(db, issuer, subject));
    if (user) return user;
  }
}

/**
 * The user ids of many subjects of one issuer, each created on first sight
 * (users of other services' events: docs/ACTIVITY.md). One insert for the
 * new ones, one read for the rest; race-free like ensureUser, and tried
 * again for any subject whose row a deletion removed in between.
 */
export async function ensureUsers(
  db: Kysely<Database>,
  issuer: string,
  subjects: readonly string[],
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  // In one order everywhere: two batches inserting the same new subjects never wait on each other crosswise.
  let missing = [...new Set(subjects)].sort();
  while (missing.length > 0) {
    const inserted = await db
      .insertInto('users')
      .values(missing.map((subject) => ({ id: timeOrderedUuid(), issuer, subject })))
      .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
      .returning(['id', 'subject'])
      .execute();
    for (const row of inserted) ids.set(row.subject, row.id);
    const rest = missing.filter((subject) => !ids.has(subject));
    if (rest.length > 0) {
      const found = await db
        .selectFrom('users')
        .select(['id', 'subject'])
        .where('issuer', '=', issuer)
        .where('subject', 'in', rest)
        .execute();
      for (const row of found) ids.set(row.subject, row.id);
    }
    missing = missing.filter((subject) => !ids.has(subject));
  }
  return ids;
}

/** The user ids of those of `subjects` (of `issuer`) that have a user now, by subject. */
export async function findUserIds(
  db: Kysely<Database>,
  issuer: string,
  subjects: readonly string[],
): Promise<Map<string, string>> {
  if (subjects.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'subject'])
    .where('issuer', '=', issuer)
    .where('subject', 'in', [...subjects])
    .execute();
  return new Map(rows.map((row) => [row.subject, row.id]));
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
