import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { PageEnd } from '../../db/queries/leaderboard.js';
import { teamKey } from '../../db/team-key.js';
import { pgInt4, pgInt8Text, pgNegatableInt4, pgPositiveInt8Text, pgUuid } from './pg-range.js';

/**
 * Page cursors. To a client a cursor is an opaque string it hands back
 * unchanged; inside it is base64url(JSON) of the keyset of the last entry
 * served, tagged with the list it belongs to so a cursor of one list is
 * refused by another: a leaderboard cursor also names its board (see
 * `leaderboardCursorBoard`), which the service compares with the board a
 * read shows. A cursor carries no secret and grants nothing: a forged but
 * well-formed one just starts a page somewhere else, so it is validated for
 * shape, not signed.
 */

/** Longest cursor accepted; real ones are well under 200 characters. */
export const MAX_CURSOR_LENGTH = 512;

/** A board tag: `all`, `week:2026-W47`, `month:2026-11`, `~` and a team hash, `archive:` first. */
const BOARD_TAG = /^[a-z0-9:~_-]{1,80}$/i;

/**
 * The board a leaderboard walk is on, as its cursors name it: the board
 * (`all`, `week:2026-W47`, `month:2026-11`: the season is part of the name),
 * with `team` a hash of its team key (the key itself may be long; "Arsenal"
 * and "ARSENAL" are one board, so one tag), or with `archive` the closed
 * season's final standings (`archive:week:2026-W47`), which are not its live board.
 */
export function leaderboardCursorBoard(
  board: string,
  options: { team?: string | undefined; archive?: boolean } = {},
): string {
  if (options.archive) return `archive:${board}`;
  if (options.team === undefined) return board;
  const hash = createHash('sha256').update(teamKey(options.team)).digest('base64url');
  return `${board}~${hash.slice(0, 16)}`;
}

/** A leaderboard cursor: where its page ended, and on which board. */
export interface LeaderboardCursor extends PageEnd {
  /** leaderboardCursorBoard() of the read that gave it out. */
  board: string;
}

// Every field is bounded to its column type (pg-range.ts): a forged cursor is a 400, never a
// cast error in PostgreSQL.
const leaderboardKeyset = z.tuple([
  z.literal('lb'),
  // The board walked (leaderboardCursorBoard): compared, never sent to SQL.
  z.string().regex(BOARD_TAG),
  pgNegatableInt4,
  // reached_seq: a bigint from a sequence (never negative), carried as text: a JS
  // number would lose digits past 2^53.
  pgInt8Text.refine((text) => !text.startsWith('-')),
  pgUuid,
  // The rank that entry was served with: the next page's ranks continue from it.
  pgInt4.min(1),
]);

const ledgerKeyset = z.tuple([z.literal('pts'), pgPositiveInt8Text]);

// A definition's versions: the version served last (an int4, from 1).
const definitionKeyset = z.tuple([z.literal('def'), pgInt4.min(1)]);

function encode(keyset: unknown): string {
  return Buffer.from(JSON.stringify(keyset), 'utf8').toString('base64url');
}

/** The JSON inside a cursor, or undefined when it is not canonical base64url of JSON. */
function decode(cursor: string): unknown {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  // Node's decoder skips what it cannot read; only a round trip proves the text was exact.
  if (bytes.toString('base64url') !== cursor) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function encodeLeaderboardCursor({ board, position, rank }: LeaderboardCursor): string {
  return encode(['lb', board, position.points, position.seq, position.userId, rank]);
}

/** Where and on which board the page a leaderboard cursor came from ended, or undefined. */
export function decodeLeaderboardCursor(cursor: string): LeaderboardCursor | undefined {
  const parsed = leaderboardKeyset.safeParse(decode(cursor));
  if (!parsed.success) return undefined;
  const [, board, points, seq, userId, rank] = parsed.data;
  return { board, position: { points, seq, userId }, rank };
}

export function encodeLedgerCursor(entryId: string): string {
  return encode(['pts', entryId]);
}

/** The ledger entry id a points-history cursor points after, or undefined. */
export function decodeLedgerCursor(cursor: string): string | undefined {
  const parsed = ledgerKeyset.safeParse(decode(cursor));
  return parsed.success ? parsed.data[1] : undefined;
}

export function encodeDefinitionCursor(version: number): string {
  return encode(['def', version]);
}

/** The definition version a history cursor points after (older versions follow), or undefined. */
export function decodeDefinitionCursor(cursor: string): number | undefined {
  const parsed = definitionKeyset.safeParse(decode(cursor));
  return parsed.success ? parsed.data[1] : undefined;
}
