import { z } from 'zod';

/**
 * Values from outside (cursors, ids) that reach a query as parameters, bounded
 * to what the PostgreSQL column type holds. A value outside is a client error
 * (400) here instead of a cast failure in the database (which would be a 500).
 */

export const INT4_MIN = -2147483648;
export const INT4_MAX = 2147483647;
export const INT8_MIN = -9223372036854775808n;
export const INT8_MAX = 9223372036854775807n;

/** An `integer` (int4). */
export const pgInt4 = z.number().int().min(INT4_MIN).max(INT4_MAX);

/**
 * An `integer` whose negation is an `integer` too (every int4 but the
 * smallest): the rank order keys on `-points`, so -(-2³¹) would overflow.
 */
export const pgNegatableInt4 = z.number().int().min(-INT4_MAX).max(INT4_MAX);

/** A `bigint` (int8) as canonical decimal text: JSON numbers lose precision past 2⁵³. */
export const pgInt8Text = z
  .string()
  .regex(/^(0|-?[1-9]\d{0,18})$/)
  // A failed regex does not stop the refinement: check again before BigInt() (it throws on "1e3").
  .refine(
    (text) =>
      /^(0|-?[1-9]\d{0,18})$/.test(text) && BigInt(text) >= INT8_MIN && BigInt(text) <= INT8_MAX,
  );

/** A positive `bigint` (a `bigserial` id) as canonical decimal text. */
export const pgPositiveInt8Text = pgInt8Text.refine(
  (text) => /^[1-9]\d*$/.test(text) && BigInt(text) >= 1n,
);

/**
 * A `timestamptz` as ISO-8601 UTC with microseconds (what `to_char(…, 'US')`
 * gives back): years 0001–9999 (PostgreSQL has no year 0), a real calendar
 * date, hours 00–23.
 */
export const pgTimestamptzText = z
  .string()
  .regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  .refine(isRealInstant, 'Not a real date and time');

function isRealInstant(text: string): boolean {
  if (text.startsWith('0000')) return false;
  // Date accepts 24:00 and rolls February 30 over; only an exact round trip is a real instant.
  const date = new Date(`${text.slice(0, 19)}Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 19) === text.slice(0, 19);
}

/** A `uuid`, lower-cased (PostgreSQL prints them so). */
export const pgUuid = z.uuid().transform((id) => id.toLowerCase());
