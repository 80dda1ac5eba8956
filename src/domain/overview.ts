/**
 * The Overview's windows and how its counts line up on one time axis
 * (docs/decisions/0092-console-overview.md).
 */

export const OVERVIEW_WINDOWS = {
  /** The last hour, a bucket a minute. */
  hour: { seconds: 3_600, bucketSeconds: 60 },
  /** The last day, a bucket every half hour. */
  day: { seconds: 86_400, bucketSeconds: 1_800 },
} as const;
export type OverviewWindow = keyof typeof OVERVIEW_WINDOWS;

/** Every bucket's start from the one holding `from` to the one holding `to`, oldest first. */
export function bucketStarts(from: Date, to: Date, bucketSeconds: number): Date[] {
  const size = bucketSeconds * 1000;
  const first = Math.floor(from.getTime() / size) * size;
  const starts: Date[] = [];
  for (let at = first; at <= to.getTime(); at += size) starts.push(new Date(at));
  return starts;
}

/**
 * Per type, one count per bucket of `starts` (0 where none), and the points per bucket over all
 * types; types by their total, most first.
 */
export function alignBuckets(
  starts: readonly Date[],
  rows: ReadonlyArray<{ at: Date; type: string; events: number; points: number }>,
): { events: Array<{ type: string; counts: number[] }>; points: number[] } {
  const index = new Map(starts.map((start, i) => [start.getTime(), i]));
  const byType = new Map<string, number[]>();
  const points = starts.map(() => 0);
  for (const row of rows) {
    const i = index.get(row.at.getTime());
    if (i === undefined) continue; // outside the axis: the clock moved between the reads
    let counts = byType.get(row.type);
    if (!counts) byType.set(row.type, (counts = starts.map(() => 0)));
    counts[i]! += row.events;
    points[i]! += row.points;
  }
  const total = (counts: number[]) => counts.reduce((sum, n) => sum + n, 0);
  const events = [...byType]
    .map(([type, counts]) => ({ type, counts }))
    .sort((a, b) => total(b.counts) - total(a.counts) || a.type.localeCompare(b.type));
  return { events, points };
}
