import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { TOMBSTONE_ISSUER } from './accounts.js';
import type { ActivityEntry } from './activity.js';

/*
 * Finding fans for the admin API (docs/CATALOG.md, "Finding a fan"): by id,
 * by subject at an issuer, by handle (exactly, or its first letters). Deleted
 * accounts' tombstones are never found: nothing links back to them.
 */

/** A fan as a search lists them. */
export interface FanSummary {
  id: string;
  issuer: string;
  subject: string;
  handle: string | null;
  name: string | null;
  /** The balance: the all-time entry's points once onboarded, else the newest ledger entry's. */
  points: number;
  onboardedAt: Date | null;
  bannedAt: Date | null;
  createdAt: Date;
}

function summaries(db: Kysely<Database>) {
  return db
    .selectFrom('users as u')
    .leftJoin('profiles as p', 'p.userId', 'u.id')
    .select((eb) => [
      'u.id',
      'u.issuer',
      'u.subject',
      'p.handle',
      'p.name',
      'u.onboardedAt',
      'u.bannedAt',
      'u.createdAt',
      eb.fn
        .coalesce(
          eb
            .selectFrom('leaderboardEntries as e')
            .select('e.points')
            .whereRef('e.userId', '=', 'u.id')
            .where('e.board', '=', 'all'),
          eb
            .selectFrom('pointsLedger as l')
            .select('l.balanceAfter')
            .whereRef('l.userId', '=', 'u.id')
            .orderBy('l.id', 'desc')
            .limit(1),
          sql.lit(0),
        )
        .$castTo<number>()
        .as('points'),
    ])
    .where('u.deletedAt', 'is', null)
    .where('u.issuer', '<>', TOMBSTONE_ISSUER);
}

/** The fan with this id, if there is one (and it is not a tombstone). */
export function findFanById(db: Kysely<Database>, id: string): Promise<FanSummary | undefined> {
  return summaries(db).where('u.id', '=', id).executeTakeFirst();
}

/** The fan an identity provider knows as `subject` (the users key: one at most). */
export function findFanBySubject(
  db: Kysely<Database>,
  issuer: string,
  subject: string,
): Promise<FanSummary | undefined> {
  return summaries(db)
    .where('u.issuer', '=', issuer)
    .where('u.subject', '=', subject)
    .executeTakeFirst();
}

/**
 * Fans holding a handle whose key (lower-cased) starts with `prefix`, in
 * byte order of the key, `limit` at most (so the exact handle comes first
 * when it is held): an index range of handle_claims_prefix_idx.
 */
export function findFansByHandlePrefix(
  db: Kysely<Database>,
  prefix: string,
  limit: number,
): Promise<FanSummary[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return summaries(db)
    .innerJoin('handleClaims as c', 'c.userId', 'u.id')
    .where('c.reservedUntil', 'is', null)
    .where(sql<boolean>`c.handle_key COLLATE "C" LIKE ${pattern}`)
    .orderBy(sql`c.handle_key COLLATE "C"`)
    .limit(limit)
    .execute();
}

/** A fan's entry on a board, shown or hidden (banned). */
export interface FanEntry {
  board: string;
  points: number;
  hidden: boolean;
}

/** Every board the fan has an entry on: all-time first, then seasons, newest first. */
export function fanEntries(db: Kysely<Database>, userId: string): Promise<FanEntry[]> {
  return db
    .selectFrom('leaderboardEntries')
    .select(['board', 'points', 'hidden'])
    .where('userId', '=', userId)
    .orderBy(sql`board = 'all'`, 'desc')
    .orderBy('board', 'desc')
    .execute();
}

/** An event recorded for a fan, with its row id (what pages them). */
export type FanEvent = ActivityEntry & { id: string };

/** A page of the events recorded for a fan, newest first: `limit` rows older than `beforeId`. */
export function fanEventsPage(
  db: Kysely<Database>,
  userId: string,
  query: { limit: number; beforeId?: string | undefined },
): Promise<FanEvent[]> {
  let select = db
    .selectFrom('activityEvents')
    .select([
      'id',
      'clientId',
      'eventId',
      'userId',
      'type',
      'value',
      'occurredAt',
      'bodyHash',
      'points',
      'balanceAfter',
      'questsCompleted',
      'recordedAt',
      'reversedAt',
    ])
    .where('userId', '=', userId);
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  return select.orderBy('id', 'desc').limit(query.limit).execute();
}
