/**
 * Named examples of the leaderboard operations: a board page, the closed
 * seasons, and your rank with its neighbours.
 */
import { ALICE, BEN, CARA, ok, type Examples } from './openapi-examples-common.js';

const entry = (
  userId: string,
  handle: string,
  name: string,
  points: number,
  rank: number,
  profileUrl: string | null = null,
) => ({ userId, handle, name, profileUrl, points, rank });

/** Success responses of the leaderboard operations, by operation id and status. */
export const LEADERBOARD_RESPONSE_EXAMPLES: Record<string, Record<string, Examples>> = {
  leaderboard: {
    '200': ok('page', 'Leaderboard page', {
      period: 'all',
      season: null,
      startsAt: null,
      nextResetAt: null,
      entries: [
        entry(BEN, 'benfromleeds', 'Ben Carter', 2450, 1),
        entry(CARA, 'cara_fc', 'Cara Duarte', 1900, 2, 'https://cara.example.org/'),
      ],
      nextCursor: 'eyJwIjoxOTAwfQ',
    }),
  },
  leaderboardSeasons: {
    '200': ok('seasons', 'Closed weeks, newest first', {
      period: 'week',
      entries: [
        {
          season: '2026-W47',
          startsAt: '2026-11-16T00:00:00.000Z',
          endsAt: '2026-11-23T00:00:00.000Z',
        },
        {
          season: '2026-W46',
          startsAt: '2026-11-09T00:00:00.000Z',
          endsAt: '2026-11-16T00:00:00.000Z',
        },
      ],
      nextCursor: '2026-W46',
    }),
  },
  leaderboardAroundMe: {
    '200': ok('aroundMe', 'Your rank with one neighbour on each side', {
      period: 'week',
      season: '2026-W48',
      startsAt: '2026-11-23T00:00:00.000Z',
      nextResetAt: '2026-11-30T00:00:00.000Z',
      entry: entry(ALICE, 'alice', 'Alice Martin', 275, 12, 'https://alice.example.com/'),
      above: [entry(CARA, 'cara_fc', 'Cara Duarte', 300, 11, 'https://cara.example.org/')],
      below: [entry(BEN, 'benfromleeds', 'Ben Carter', 250, 13)],
    }),
  },
};
