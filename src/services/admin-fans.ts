import type { Kysely } from 'kysely';
import {
  fanEntries,
  fanEventsPage,
  findFanById,
  findFanBySubject,
  findFansByHandlePrefix,
  type FanEntry,
  type FanEvent,
  type FanSummary,
} from '../../db/queries/fans.js';
import { findRankedEntry } from '../../db/queries/leaderboard.js';
import { recentLedgerEntries } from '../../db/queries/points.js';
import { findProfile } from '../../db/queries/users.js';
import type { Database, LedgerRow, ProfileRow } from '../../db/schema.js';
import { AppError } from '../app-error.js';
import type { Catalog } from '../domain/catalog.js';
import { fanQueryKinds } from '../domain/fan-search.js';
import { gameProgress, type GameProgress } from './account.js';
import { toPage, type Page } from './page.js';
import { readSnapshot } from './snapshot.js';

/*
 * Finding a fan and reading their whole story (docs/CATALOG.md, "Finding a
 * fan"), for the admin API. Reads only; every figure from the primary, so an
 * operator sees what they just changed.
 */

export type { FanEvent, FanSummary };

/** A fan found by a search, and how: by id, subject or handle (exactly, or a handle's first letters). */
export interface FanMatch extends FanSummary {
  matchedBy: ('id' | 'subject' | 'handle' | 'handle_prefix')[];
}

/**
 * The fans `query` names: the fan with that id (when it is a UUID), the fan
 * the issuer knows by that subject, the fan holding that handle (a leading
 * `@` dropped, any letter case), then fans whose handle starts with it, at
 * most `limit` in all, each once with every way it matched.
 */
export async function searchFans(
  db: Kysely<Database>,
  input: { query: string; issuer: string; limit: number },
): Promise<FanMatch[]> {
  const kinds = fanQueryKinds(input.query);
  const found = new Map<string, FanMatch>();
  const add = (fan: FanSummary | undefined, how: FanMatch['matchedBy'][number]) => {
    if (!fan) return;
    const match = found.get(fan.id) ?? { ...fan, matchedBy: [] };
    match.matchedBy.push(how);
    found.set(fan.id, match);
  };
  if (kinds.id) add(await findFanById(db, kinds.id), 'id');
  add(await findFanBySubject(db, input.issuer, input.query), 'subject');
  if (kinds.handleKey) {
    for (const fan of await findFansByHandlePrefix(db, kinds.handleKey, input.limit)) {
      add(fan, fan.handle?.toLowerCase() === kinds.handleKey ? 'handle' : 'handle_prefix');
    }
  }
  return [...found.values()].slice(0, input.limit);
}

/** A fan's entry on one board: its rank there and among their team's fans, unless banned (hidden). */
export interface FanBoard extends FanEntry {
  rank: number | null;
  teamRank: number | null;
}

/** Everything an operator looks at on a fan's page, from one snapshot. */
export interface FanStory {
  fan: FanSummary;
  profile: ProfileRow | undefined;
  boards: FanBoard[];
  game: GameProgress;
  ledger: Page<LedgerRow>;
  events: Page<FanEvent>;
}

/** How many ledger entries and events the fan's page starts with. */
export const STORY_PAGE = 20;

export async function fanStory(
  db: Kysely<Database>,
  catalog: Catalog,
  userId: string,
  now: Date,
): Promise<FanStory> {
  return readSnapshot(db, async (trx) => {
    const fan = await requireFan(trx, userId);
    const profile = await findProfile(trx, userId);
    const boards: FanBoard[] = [];
    for (const entry of await fanEntries(trx, userId)) {
      const rank = entry.hidden
        ? undefined
        : await findRankedEntry(trx, userId, { board: entry.board });
      const teamRank =
        entry.hidden || !profile?.favoriteTeam
          ? undefined
          : await findRankedEntry(trx, userId, { board: entry.board, team: profile.favoriteTeam });
      boards.push({ ...entry, rank: rank?.rank ?? null, teamRank: teamRank?.rank ?? null });
    }
    return {
      fan,
      profile,
      boards,
      game: await gameProgress(trx, catalog, userId, now),
      ledger: await ledgerPage(trx, userId, { limit: STORY_PAGE }),
      events: await eventsPage(trx, userId, { limit: STORY_PAGE }),
    };
  });
}

/** One page of the fan's ledger, newest first (404 for no such fan). */
export async function fanLedger(
  db: Kysely<Database>,
  userId: string,
  query: { limit: number; beforeId?: string | undefined },
): Promise<Page<LedgerRow>> {
  return readSnapshot(db, async (trx) => {
    await requireFan(trx, userId);
    return ledgerPage(trx, userId, query);
  });
}

/** One page of the events recorded for the fan, newest first, with their results (404 for no such fan). */
export async function fanEvents(
  db: Kysely<Database>,
  userId: string,
  query: { limit: number; beforeId?: string | undefined },
): Promise<Page<FanEvent>> {
  return readSnapshot(db, async (trx) => {
    await requireFan(trx, userId);
    return eventsPage(trx, userId, query);
  });
}

async function ledgerPage(
  db: Kysely<Database>,
  userId: string,
  query: { limit: number; beforeId?: string | undefined },
): Promise<Page<LedgerRow>> {
  const rows = await recentLedgerEntries(db, userId, query.limit + 1, query.beforeId);
  return toPage(rows, query.limit, (last) => String(last.id));
}

async function eventsPage(
  db: Kysely<Database>,
  userId: string,
  query: { limit: number; beforeId?: string | undefined },
): Promise<Page<FanEvent>> {
  const rows = await fanEventsPage(db, userId, { ...query, limit: query.limit + 1 });
  return toPage(rows, query.limit, (last) => last.id);
}

async function requireFan(db: Kysely<Database>, userId: string): Promise<FanSummary> {
  const fan = await findFanById(db, userId);
  if (!fan) throw new AppError('NOT_FOUND', `No fan has the id "${userId}"`);
  return fan;
}
