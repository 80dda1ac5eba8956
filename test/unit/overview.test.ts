import { describe, expect, it } from 'vitest';
import { alignBuckets, bucketStarts } from '../../src/domain/overview.js';

const at = (iso: string) => new Date(iso);

describe('the overview’s time axis', () => {
  it('starts at the bucket holding `from` and ends at the one holding `to`', () => {
    const starts = bucketStarts(at('2026-12-02T10:00:30Z'), at('2026-12-02T10:03:00Z'), 60);
    expect(starts.map((d) => d.toISOString())).toEqual([
      '2026-12-02T10:00:00.000Z',
      '2026-12-02T10:01:00.000Z',
      '2026-12-02T10:02:00.000Z',
      '2026-12-02T10:03:00.000Z',
    ]);
    expect(
      bucketStarts(at('2026-12-02T10:10:00Z'), at('2026-12-02T11:09:59Z'), 1_800),
    ).toHaveLength(3);
  });

  it('lines counts up per type (0 where none), sums points, most events first', () => {
    const starts = bucketStarts(at('2026-12-02T10:00:00Z'), at('2026-12-02T10:02:00Z'), 60);
    const aligned = alignBuckets(starts, [
      { at: at('2026-12-02T10:00:00Z'), type: 'match_checkin', events: 1, points: 10 },
      { at: at('2026-12-02T10:02:00Z'), type: 'article_read', events: 3, points: 3 },
      { at: at('2026-12-02T10:02:00Z'), type: 'match_checkin', events: 1, points: 0 },
      // Past the axis (the clock moved between reads): left out.
      { at: at('2026-12-02T10:03:00Z'), type: 'match_checkin', events: 9, points: 90 },
    ]);
    expect(aligned).toEqual({
      events: [
        { type: 'article_read', counts: [0, 0, 3] },
        { type: 'match_checkin', counts: [1, 0, 1] },
      ],
      points: [10, 0, 3],
    });
    expect(alignBuckets(starts, [])).toEqual({ events: [], points: [0, 0, 0] });
  });
});
