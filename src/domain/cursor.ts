import { z } from 'zod';
import type { PageEnd } from '../../db/queries/leaderboard.js';
import { pgInt4, pgInt8Text, pgNegatableInt4, pgPositiveInt8Text, pgUuid } from './pg-range.js';

/**
 * Page cursors. To a client a cursor is an opaque string it hands back
 * unchanged; inside it is base64url(JSON) of the keyset of the last entry
 * served, tagged with the list it belongs to so a cursor of one list is
 * refused by another. A cursor carries no secret and grants nothing: a
 * forged but well-formed one just starts a page somewhere else, so it is
 * validated for shape, not signed.
 */

/** Longest cursor accepted; real ones are well under 200 characters. */
export const MAX_CURSOR_LENGTH = 512;

// Every field is bounded to its column type (pg-range.ts): a forged cursor is a 400, never a
// cast error in PostgreSQL.
const leaderboardKeyset = z.tuple([
  z.literal('lb'),
  pgNegatableInt4,
  // reached_seq: a bigint from a sequence (never negative), carried as text: a JS
  // number would lose digits past 2^53.
  pgInt8Text.refine((text) => !text.startsWith('-')),
  pgUuid,
  // The rank that entry was served with: the next page's ranks continue from it.
  pgInt4.min(1),
]);

const ledgerKeyset = z.tuple([z.literal('pts'), pgPositiveInt8Text]);

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

export function encodeLeaderboardCursor({ position, rank }: PageEnd): string {
  return encode(['lb', position.points, position.seq, position.userId, rank]);
}

/** Where the page a leaderboard cursor came from ended, or undefined when it is not one. */
export function decodeLeaderboardCursor(cursor: string): PageEnd | undefined {
  const parsed = leaderboardKeyset.safeParse(decode(cursor));
  if (!parsed.success) return undefined;
  const [, points, seq, userId, rank] = parsed.data;
  return { position: { points, seq, userId }, rank };
}

export function encodeLedgerCursor(entryId: string): string {
  return encode(['pts', entryId]);
}

/** The ledger entry id a points-history cursor points after, or undefined. */
export function decodeLedgerCursor(cursor: string): string | undefined {
  const parsed = ledgerKeyset.safeParse(decode(cursor));
  return parsed.success ? parsed.data[1] : undefined;
}
