/** A cursor-paged list (docs/CONTRACT.md, Shapes): `nextCursor` is null on the last page. */
export interface Page<T> {
  entries: T[];
  nextCursor: string | null;
}

/**
 * A page from up to `limit + 1` rows: the extra row only tells that another
 * page follows, and the cursor points after the last row served.
 */
export function toPage<T>(rows: T[], limit: number, cursorAfter: (last: T) => string): Page<T> {
  if (rows.length <= limit) return { entries: rows, nextCursor: null };
  const entries = rows.slice(0, limit);
  return { entries, nextCursor: cursorAfter(entries[limit - 1]!) };
}
