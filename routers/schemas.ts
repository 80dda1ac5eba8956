import { z } from 'zod';
import { MAX_CURSOR_LENGTH } from '../src/domain/cursor.js';

/**
 * The building blocks the schemas of every router share: field types, the
 * success envelope and the paging parameters. The schemas themselves live by
 * area (profile-schemas.ts, points-schemas.ts, leaderboard-schemas.ts,
 * event-schemas.ts, live-schemas.ts); each carries an `id`, so openapi.json
 * lists it once under components/schemas.
 */
export const text = z.string().nullable();
export const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
export const points = z.number().int();

/** `{ success: true, data }`: the success envelope every operation answers with. */
export function success<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

// ---------------------------------------------------------------------------
// Read APIs: paging parameters.

export const pageLimit = z
  .number()
  .int()
  .min(1)
  .max(100)
  .default(20)
  .meta({ description: 'Entries per page, 1–100 (default 20)' });

/** An opaque cursor: decoded here, so a forged one is a 400 naming `cursor`. */
export function cursorParam<T>(decode: (cursor: string) => T | undefined) {
  return z
    .string()
    .max(MAX_CURSOR_LENGTH)
    .transform((value, ctx) => {
      const decoded = decode(value);
      if (decoded === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'Not a cursor this list gave out: pass nextCursor back unchanged',
        });
        return z.NEVER;
      }
      return decoded;
    })
    .meta({ description: 'nextCursor of the previous page, unchanged; omit for the first page' });
}

export const nextCursor = z
  .string()
  .nullable()
  .meta({ description: 'Pass as `cursor` for the next page; null on the last page' });
