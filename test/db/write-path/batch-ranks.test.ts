import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendBatch, type SentEvent } from '../../helpers/batches.js';
import { fullSortRanks } from '../../helpers/consistency.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';

/**
 * The ranks a batch announces (docs/ACTIVITY.md, "Ranks in a batch"): one
 * statement writes all of a batch's fans, and each fan's `rank_changed`
 * counts the other fans' moves in that statement, so with no other write
 * running every announced rank is the full sort right after the commit, on
 * the whole board and on the fan's team's, and a fan who announced nothing
 * holds the rank they held before.
 */

const FANS = 40;
const TEAMS = ['Red Lions', 'Blue Sharks', 'Green Hawks'];

let database: TestDatabase;
let app: TestApp;

beforeAll(async () => {
  database = await createTestDatabase();
  app = await startTestApp({ database });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await database?.destroy();
});

interface Announced {
  userId: string;
  board: 'global' | 'team';
  rank: number;
  previousRank: number | null;
}

/** The last rank_changed of each fan and board with an id above `after`. */
async function announcedSince(after: string, userIds: readonly string[]) {
  const { rows } = await sql<{ userId: string; payload: Omit<Announced, 'userId'> }>`
    SELECT user_id, payload FROM live_events
    WHERE type = 'rank_changed' AND id > ${after}::bigint
      AND user_id = ANY (${sql.val(userIds)}::uuid[])
    ORDER BY id`.execute(database.db);
  const last = new Map<string, Announced>();
  for (const { userId, payload } of rows) {
    last.set(`${userId} ${payload.board}`, { userId, ...payload });
  }
  return last;
}

async function newestEventId(): Promise<string> {
  const { rows } = await sql<{
    id: string | null;
  }>`SELECT max(id)::text AS id FROM live_events`.execute(database.db);
  return rows[0]?.id ?? '0';
}

describe(`the ranks one batch announces, on ${testDbKind}`, () => {
  it('each fan’s rank_changed counts the other fans of the batch: every announced rank is the full sort at the commit', async () => {
    const run = `ranks-${Date.now().toString(36)}`;
    const subjects = Array.from({ length: FANS }, (_, i) => `${run}-${i}`);
    const userIds = await Promise.all(
      subjects.map(async (subject, i) => {
        const answer = await app.request('POST', '/api/user/profile', {
          token: await app.token(subject),
          body: { favoriteTeam: TEAMS[i % TEAMS.length] },
        });
        expect(answer.status, answer.text).toBe(201);
        return answer.body.data.user.id as string;
      }),
    );
    const service = await app.serviceToken(`sender-${run}`);
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    // Two batches whose points cross: fans overtake each other in both, on
    // both kinds of board, and some reach the same score as another (at
    // most 10 + 10 article_read units: the day cap is 20).
    for (const round of [0, 1]) {
      const before = await fullSortRanks(database.db);
      const after = await newestEventId();
      const events: SentEvent[] = subjects.flatMap((subject, i): SentEvent[] => [
        {
          id: `${run}-${round}-${i}-read`,
          subject,
          type: 'article_read',
          value: ((i * (round === 0 ? 7 : 3)) % 10) + 1,
          occurredAt,
        },
        ...(i % (round === 0 ? 3 : 4) === 0
          ? [{ id: `${run}-${round}-${i}-pred`, subject, type: 'prediction_correct', occurredAt }]
          : []),
      ]);
      const results = await sendBatch(app, service, events);
      expect(results.filter((result) => result.status !== 'recorded')).toEqual([]);
      const sorted = await fullSortRanks(database.db);
      const announced = await announcedSince(after, userIds);
      let moved = 0;
      for (const userId of userIds) {
        const now = sorted.get(userId)!;
        const then = before.get(userId)!;
        const global = announced.get(`${userId} global`);
        if (global) moved += 1;
        expect(global?.rank ?? then.global, `${userId} global`).toBe(now.global);
        const team = announced.get(`${userId} team`);
        expect(team?.rank ?? then.team, `${userId} team`).toBe(now.team);
      }
      // The batch did move fans past each other.
      expect(moved).toBeGreaterThan(FANS / 2);
    }
  }, 120_000);
});
