import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRankedEntry } from '../../../db/queries/leaderboard.js';
import { ALL_TIME_BOARD, writeBoards } from '../../../src/domain/boards.js';
import { consistencyProblems, fullSortRanks } from '../../helpers/consistency.js';
import { movePoints } from '../../helpers/point-moves.js';
import { reader, walkPages } from '../../helpers/reads.js';
import {
  startOtherInstance,
  startTestApp,
  type OtherInstance,
  type TestApp,
} from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * The exactness property of rank_counts, balances and caps under points
 * from activity (docs/ACTIVITY.md): scores spread over every points level
 * through the ledger (adjustments with their source), then a storm on two
 * app instances of one database — batches of events for several fans from
 * two sending clients, the same batch to both instances at once, check-ins
 * past the daily cap split over both instances, reversals raced against
 * each other and against new events, onboardings of fans who already earned
 * points, PATCHes that move fans between team boards, and more point moves.
 * Afterwards every invariant of test/helpers/consistency.ts holds (balance =
 * Σ ledger, rank counts exact, no cap passed), each fan's check-ins are
 * exactly the cap, and every rank the API serves equals a full SQL sort.
 */

const GROUPS = testDbKind === 'postgres' ? 30 : 15;
const PARALLEL = testDbKind === 'postgres' ? 8 : 4;
/** Fans per group: the first three onboard before the storm, the fourth during it. */
const GROUP_SIZE = 4;
const TEAMS = ['Red Lions', 'BLUE Sharks', 'green hawks'];
const CHECKIN_CAP = 5;

let database: TestDatabase;
let issuer: TokenIssuer;
let apps: [TestApp, OtherInstance];

beforeAll(async () => {
  database = await createTestDatabase();
  issuer = await startTokenIssuer();
  apps = [
    await startTestApp({ database, issuer }),
    await startOtherInstance(database, { issuer, poolMax: 5 }),
  ];
}, 60_000);

afterAll(async () => {
  for (const app of apps ?? []) await app.close();
  await issuer?.stop();
  await database?.destroy();
});

async function inParallel<T>(
  items: T[],
  size: number,
  work: (item: T, i: number) => Promise<void>,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

interface SentEvent {
  id: string;
  subject: string;
  type: string;
  value?: number;
  occurredAt: string;
}

describe(`points from activity: a concurrent storm on ${testDbKind}`, () => {
  it('keeps balance = Σ ledger, exact rank counts and caps, and serves the full-sort rank everywhere', async () => {
    const app = (i: number) => apps[i % 2]!;
    const handle = (i: number) => (i % 2 === 0 ? database : apps[1].handle);
    const services = [
      await apps[0].serviceToken('storm-checkins'),
      await apps[0].serviceToken('storm-predictions'),
    ];
    // One instant for every event: the cap windows stay those of one day even
    // if the storm crosses midnight.
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    // The boards point moves credit: fixed once, as the storm's writes credit those of their own now.
    const boards = writeBoards(new Date());
    const run = Date.now().toString(36);
    const statuses: string[] = [];
    const expectOk = (what: string, response: { status: number; text: string }) => {
      statuses.push(`${what} ${response.status}`);
      if (response.status >= 300) throw new Error(`${what}: ${response.status} ${response.text}`);
    };
    /** Every result any instance answered, per event id of the check-ins client. */
    const checkinResults = new Map<string, string[]>();

    const sendBatch = async (instance: number, service: number, events: SentEvent[]) => {
      const response = await app(instance).request('POST', '/api/events', {
        token: services[service]!,
        body: { events },
      });
      expectOk('events', response);
      const results = response.body.data.results as any[];
      expect(results.map((r) => r.id)).toEqual(events.map((e) => e.id));
      results.forEach((result, i) => {
        // Nothing here is malformed or out of range: a rejection is the cap, nothing else.
        if (result.status === 'rejected') expect(result.error.code).toBe('CAP_REACHED');
        if (service === 0 && events[i]!.type === 'match_checkin') {
          const list = checkinResults.get(result.id) ?? [];
          list.push(result.status);
          checkinResults.set(result.id, list);
        }
      });
      return results;
    };
    const reverse = async (instance: number, service: number, id: string) => {
      const response = await app(instance).request('POST', '/api/events/reversals', {
        token: services[service]!,
        body: { id },
      });
      expectOk('reversal', response);
      return response.body.data.status as string;
    };

    const groups = Array.from({ length: GROUPS }, (_, g) =>
      Array.from({ length: GROUP_SIZE }, (_, f) => `activity-${run}-${g}-${f}`),
    );
    const tokens = new Map<string, string>();
    for (const subject of groups.flat()) tokens.set(subject, await issuer.sign(subject));
    const reversalAnswers: string[][] = [];

    await inParallel(groups, PARALLEL, async (fans, g) => {
      const event = (subject: string, id: string, type: string, value?: number): SentEvent => ({
        id: `${subject}-${id}`,
        subject,
        type,
        ...(value !== undefined && { value }),
        occurredAt,
      });
      // Three of the four fans onboard first (teams, some handles).
      const userIds: string[] = [];
      await Promise.all(
        fans.slice(0, 3).map(async (subject, f) => {
          const team = (g + f) % 4 === 0 ? null : TEAMS[(g + f) % TEAMS.length]!;
          const response = await app(g + f).request('POST', '/api/user/profile', {
            token: tokens.get(subject)!,
            body: {
              ...(f === 0 && { handle: `act_${run}_${g}` }),
              ...(team && { favoriteTeam: team }),
            },
          });
          expectOk('onboarding', response);
          userIds[f] = response.body.data.user.id;
        }),
      );

      // Spread scores through the ledger (adjustments), concurrent with the
      // first batch, which both instances receive at once (one records, the
      // other answers duplicate).
      const first = fans.flatMap((subject, f) => [
        event(subject, 'c0', 'match_checkin'),
        event(subject, 'c1', 'match_checkin'),
        event(subject, 'c2', 'match_checkin'),
        event(subject, 'r0', 'article_read', 1 + ((g + f) % 7)),
      ]);
      const predictions = fans.flatMap((subject) => [
        event(subject, 'p0', 'prediction_correct'),
        event(subject, 'p1', 'prediction_correct'),
      ]);
      await Promise.all([
        movePoints(handle(g), userIds[0]!, {
          key: `spread-${run}-${g}-0`,
          delta: Math.floor(Math.random() * 2 ** 24),
          boards,
        }),
        movePoints(handle(g + 1), userIds[1]!, {
          key: `spread-${run}-${g}-1`,
          delta: Math.floor(Math.random() * 2 ** 16),
          boards: [ALL_TIME_BOARD],
        }),
        sendBatch(g, 0, first),
        sendBatch(g + 1, 0, first),
        sendBatch(g + 1, 1, predictions),
        app(g).request('PATCH', '/api/user', {
          token: tokens.get(fans[2]!)!,
          body: { favoriteTeam: TEAMS[(g + 1) % TEAMS.length] },
        }),
      ]).then(([, , , , , patch]) => expectOk('patch', patch));

      // Four more check-ins per fan, two to each instance at once (seven in
      // all: exactly five are recorded); a prediction reversed on both
      // instances at once while new events for the fan arrive; the fourth
      // fan onboards with points already earned; team and name changes; a
      // small award crossing a 256-score cut.
      const more = (from: number) =>
        fans.flatMap((subject) => [
          event(subject, `c${from}`, 'match_checkin'),
          event(subject, `c${from + 1}`, 'match_checkin'),
        ]);
      const [, , reversalA, reversalB, , late, patch] = await Promise.all([
        sendBatch(g, 0, more(3)),
        sendBatch(g + 1, 0, more(5)),
        reverse(g, 1, `${fans[0]}-p0`),
        reverse(g + 1, 1, `${fans[0]}-p0`),
        sendBatch(g, 1, [
          event(fans[0]!, 'p2', 'prediction_correct'),
          event(fans[1]!, 'r1', 'article_read', 20),
        ]),
        app(g + 1).request('POST', '/api/user/profile', {
          token: tokens.get(fans[3]!)!,
          body: g % 2 ? { favoriteTeam: TEAMS[g % TEAMS.length] } : {},
        }),
        app(g).request('PATCH', '/api/user', {
          token: tokens.get(fans[1]!)!,
          body: g % 5 === 0 ? { favoriteTeam: null } : { favoriteTeam: TEAMS[g % TEAMS.length] },
        }),
        movePoints(handle(g + 1), userIds[2]!, {
          key: `small-${run}-${g}`,
          delta: 1 + Math.floor(Math.random() * 300),
          boards,
        }),
      ]);
      reversalAnswers.push([reversalA, reversalB]);
      expectOk('late onboarding', late);
      expectOk('patch', patch);
      userIds[3] = late.body.data.user.id;

      // After onboarding the fourth fan's reversal moves the boards too; more
      // events and a name change race it.
      const [reversalC, , rename] = await Promise.all([
        reverse(g, 1, `${fans[3]}-p1`),
        sendBatch(
          g + 1,
          1,
          fans.map((subject) => event(subject, 'p3', 'prediction_correct')),
        ),
        app(g + 1).request('PATCH', '/api/user', {
          token: tokens.get(fans[3]!)!,
          body: { name: `Late ${g}` },
        }),
      ]);
      expect(reversalC).toBe('reversed');
      expectOk('rename', rename);
    });
    expect(statuses.filter((status) => !/ 20[01]$/.test(status))).toEqual([]);

    // Each reversal raced on two instances: reversed once, already_reversed once.
    for (const answers of reversalAnswers) {
      expect(answers.sort()).toEqual(['already_reversed', 'reversed']);
    }
    // Caps exact: of each fan's seven check-ins (the first three sent twice),
    // exactly five were recorded — by the answers and in the database.
    for (const subject of groups.flat()) {
      const recorded = [...checkinResults]
        .filter(([id]) => id.startsWith(`${subject}-c`))
        .filter(([, answers]) => answers.includes('recorded'));
      expect(recorded, subject).toHaveLength(CHECKIN_CAP);
      for (const [id, answers] of checkinResults) {
        if (!id.startsWith(`${subject}-c`)) continue;
        // Never recorded twice; a duplicate only of a recorded one.
        expect(answers.filter((a) => a === 'recorded').length, id).toBeLessThanOrEqual(1);
        if (answers.includes('duplicate')) expect(answers, id).toContain('recorded');
      }
    }
    const db = database.db;
    const stored = await sql<{ subject: string; n: string }>`
      SELECT u.subject, count(*)::text AS n FROM activity_events a JOIN users u ON u.id = a.user_id
      WHERE a.type = 'match_checkin' AND a.reversed_at IS NULL AND u.subject LIKE ${`activity-${run}-%`}
      GROUP BY u.subject`.execute(db);
    expect(stored.rows).toHaveLength(GROUPS * GROUP_SIZE);
    for (const row of stored.rows) expect(Number(row.n), row.subject).toBe(CHECKIN_CAP);

    // Every invariant: balance = Σ ledger, running balances, rank counts, caps, teams.
    expect(await consistencyProblems(db)).toEqual([]);
    const distinct = await sql<{ n: string }>`SELECT count(DISTINCT points)::text AS n
      FROM leaderboard_entries WHERE board = 'all'`.execute(db);
    expect(Number(distinct.rows[0]!.n)).toBeGreaterThan(GROUPS);
    const levels = await sql<{ n: string }>`SELECT count(DISTINCT points >> 16)::text AS n
      FROM leaderboard_entries WHERE board = 'all'`.execute(db);
    expect(Number(levels.rows[0]!.n)).toBeGreaterThan(3);

    // Every fan's rank, on the global board and their team's, from both instances and faces.
    const expected = await fullSortRanks(db);
    expect(expected.size).toBe(GROUPS * GROUP_SIZE);
    const subjects = groups.flat();
    await inParallel(subjects, PARALLEL, async (subject, i) => {
      const read = reader(app(i), i % 2 === 0 ? 'rest' : 'trpc');
      const me = await read('leaderboardAroundMe', tokens.get(subject)!, { radius: 2 });
      if (!me.ok) throw new Error(`me failed: ${me.status}`);
      const want = expected.get(me.data.entry.userId)!;
      expect(me.data.entry.rank).toBe(want.global);
      for (const neighbour of [...me.data.above, ...me.data.below]) {
        expect(neighbour.rank).toBe(expected.get(neighbour.userId)!.global);
      }
      if (want.teamKey !== null) {
        const onTeam = await read('leaderboardAroundMe', tokens.get(subject)!, {
          radius: 1,
          team: want.teamKey,
        });
        if (!onTeam.ok) throw new Error(`team me failed: ${onTeam.status}`);
        expect(onTeam.data.entry.rank).toBe(want.team);
      }
    });
    const pages = await walkPages(
      reader(apps[1], 'rest'),
      'leaderboard',
      tokens.get(subjects[0]!)!,
      {
        limit: 41,
      },
    );
    const global = pages.flatMap((page) => page.entries);
    expect(global).toHaveLength(GROUPS * GROUP_SIZE);
    for (const entry of global) expect(entry.rank).toBe(expected.get(entry.userId)!.global);

    // The season boards the awards and reversals moved: every entry, whole board and team.
    for (const board of writeBoards(new Date()).slice(1)) {
      const onBoard = await fullSortRanks(db, board);
      expect(onBoard.size).toBeGreaterThan(0);
      for (const [userId, want] of onBoard) {
        expect((await findRankedEntry(db, userId, { board }))?.rank).toBe(want.global);
        if (want.teamKey !== null) {
          const team = await findRankedEntry(db, userId, { board, team: want.teamKey });
          expect(team?.rank).toBe(want.team);
        }
      }
    }
  }, 300_000);
});

describe('the cap check of test/helpers/consistency.ts', () => {
  let fans = 0;
  /** A fan of its own with exactly the day's cap of check-ins: no other test's data. */
  async function fanAtTheCap() {
    fans += 1;
    const app = apps[0];
    const service = await app.serviceToken('cap-check');
    const subject = `cap-check-${process.pid}-${Date.now().toString(36)}-${fans}`;
    const occurredAt = new Date(Date.now() - 60_000).toISOString();
    const response = await app.request('POST', '/api/events', {
      token: service,
      body: {
        events: Array.from({ length: CHECKIN_CAP }, (_, i) => ({
          id: `${subject}-${i}`,
          subject,
          type: 'match_checkin',
          occurredAt,
        })),
      },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data.results.map((r: any) => r.status)).toEqual(
      Array(CHECKIN_CAP).fill('recorded'),
    );
    return subject;
  }

  /** Problems the checks named `only` find with one more of the fan's check-ins, rolled back. */
  async function problemsWithASixth(
    subject: string,
    typeVersion: 'same' | 'missing',
    only: RegExp,
  ) {
    const rollback = new Error('rollback');
    let problems: string[] = [];
    await expect(
      database.db.transaction().execute(async (trx) => {
        const inserted = await sql`
          INSERT INTO activity_events (client_id, event_id, user_id, type, type_version,
            value, occurred_at, body_hash, points, balance_after)
          SELECT client_id, event_id || '-sixth', user_id, type,
                 CASE WHEN ${typeVersion} = 'missing' THEN 999999 ELSE type_version END,
                 value, occurred_at, body_hash, points, balance_after
          FROM activity_events WHERE client_id = 'cap-check' AND event_id = ${`${subject}-0`}`.execute(
          trx,
        );
        expect(Number(inserted.numAffectedRows)).toBe(1);
        problems = await consistencyProblems(trx, { only });
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    return problems;
  }

  it('finds a fan past a cap (the invariant can fail)', async () => {
    const subject = await fanAtTheCap();
    expect(await consistencyProblems(database.db, { only: /cap/ })).toEqual([]);
    const problems = await problemsWithASixth(subject, 'same', /cap/);
    expect(problems).toHaveLength(1); // the day's (check-ins have no week cap)
    expect(problems[0]).toMatch(/more of an event type in a day or week than its cap/);
    expect(await consistencyProblems(database.db, { only: /cap/ })).toEqual([]);
  });

  it('counts an event whose type version does not exist, and names it', async () => {
    const subject = await fanAtTheCap();
    const problems = await problemsWithASixth(subject, 'missing', /cap|version/);
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'an event recorded under an event type version that does not exist',
      'a fan has recorded more of an event type in a day or week than its cap',
    ]);
    expect(await consistencyProblems(database.db, { only: /cap|version/ })).toEqual([]);
  });
});
