import { sql, type Kysely } from 'kysely';
import { CatalogCache } from '../../../src/services/catalog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByIdentity } from '../../../db/queries/users.js';
import type { Database } from '../../../db/schema.js';
import { leaderboardCursorBoard } from '../../../src/domain/cursor.js';
import { getCurrentUser, getPointsHistory, getQuests } from '../../../src/services/account.js';
import { getLeaderboard, getLeaderboardAroundMe } from '../../../src/services/leaderboard.js';
import {
  EXPLAIN_SIZES,
  explainQueriesOf,
  seedForExplain,
  type ExplainedQuery,
} from '../../helpers/explain.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';

/**
 * Every read uses an index at realistic size: 100k users with profiles and
 * leaderboard entries, 100k ledger rows, 100k quest rows, statistics fresh
 * (VACUUM ANALYZE), planner settings untouched. Each case runs the real
 * service function, records the statements it issued, and EXPLAINs them.
 * `EXPLAIN_PRINT=1` prints the plans (docs/READS.md quotes them).
 */

const ISSUER = 'https://explain.test';
let database: TestDatabase;
let db: Kysely<Database>;
/** user ids at a few ranks of the global board */
const at: Record<'top' | 'middle' | 'bottom', string> = { top: '', middle: '', bottom: '' };
let middleTeam: string;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
  await seedForExplain(db, ISSUER);
  const ranked = await sql<{ userId: string; teamKey: string | null }>`
    SELECT user_id, team_key FROM leaderboard_entries WHERE board = 'all'
    ORDER BY -points, reached_seq, user_id`.execute(db);
  const rows = ranked.rows;
  at.top = rows[0]!.userId;
  const middle = rows.slice(rows.length / 2).find((row) => row.teamKey !== null)!;
  at.middle = middle.userId;
  middleTeam = middle.teamKey!.toUpperCase();
  at.bottom = rows.at(-1)!.userId;
}, 300_000);

afterAll(async () => {
  await database?.destroy();
});

const SCANS_WITH_INDEX = new Set(['Index Scan', 'Index Only Scan', 'Bitmap Index Scan']);

function expectIndexed(queries: ExplainedQuery[], label: string): void {
  expect(queries.length).toBeGreaterThan(0);
  for (const query of queries) {
    if (process.env.EXPLAIN_PRINT) {
      process.stdout.write(
        `\n[${testDbKind}] ${label}\n${query.sql}\n  ${query.summary.join('\n  ')}\n`,
      );
    }
    const types = query.nodes.map((node) => node['Node Type']);
    expect(types, `${label}: ${query.summary.join(' | ')}`).not.toContain('Seq Scan');
    expect(
      types.some((type) => SCANS_WITH_INDEX.has(type)),
      label,
    ).toBe(true);
  }
}

function indexesUsed(queries: ExplainedQuery[]): string[] {
  return queries.flatMap((query) =>
    query.nodes.map((node) => node['Index Name']).filter((name): name is string => !!name),
  );
}

describe(`every read uses an index at ${EXPLAIN_SIZES.users} users on ${testDbKind}`, () => {
  it('has the seeded size and fresh statistics', async () => {
    const counts = await sql<{ entries: string; ledger: string; quests: string }>`
      SELECT (SELECT count(*) FROM leaderboard_entries) AS entries,
             (SELECT count(*) FROM points_ledger) AS ledger,
             (SELECT count(*) FROM user_quests) AS quests`.execute(db);
    expect(counts.rows[0]).toEqual({ entries: '100000', ledger: '100000', quests: '100000' });
    const stats = await sql<{ relname: string }>`
      SELECT relname FROM pg_stat_user_tables
      WHERE relname = 'leaderboard_entries' AND last_analyze IS NOT NULL`.execute(db);
    expect(stats.rows).toHaveLength(1);
  });

  it('the bearer check finds the user by (issuer, subject)', async () => {
    expectIndexed(
      await explainQueriesOf(db, (rdb) => findUserByIdentity(rdb, ISSUER, 'explain-500')),
      'ensureUser lookup',
    );
  });

  it('GET /api/user', async () => {
    expectIndexed(await explainQueriesOf(db, (rdb) => getCurrentUser(rdb, at.middle)), 'me');
  });

  it('GET /api/leaderboard: first page, and a page after the middle of the board', async () => {
    const first = await explainQueriesOf(db, (rdb) => getLeaderboard(rdb, { limit: 20 }));
    expectIndexed(first, 'leaderboard first page');
    expect(indexesUsed(first)).toContain('leaderboard_entries_rank_idx');

    const page = await getLeaderboard(db, { limit: 100 });
    expect(page.entries).toHaveLength(100);
    const middleEntry = await getLeaderboardAroundMe(db, at.middle, { radius: 0 });
    const deep = await explainQueriesOf(db, (rdb) =>
      getLeaderboard(rdb, {
        limit: 20,
        after: { ...middleEntry.entry, board: leaderboardCursorBoard('all') },
      }),
    );
    expectIndexed(deep, 'leaderboard page after the middle');
    expect(indexesUsed(deep)).toContain('leaderboard_entries_rank_idx');
  });

  it('GET /api/leaderboard?team=…: first page and a later page', async () => {
    const first = await explainQueriesOf(db, (rdb) =>
      getLeaderboard(rdb, { limit: 20, team: middleTeam }),
    );
    expectIndexed(first, 'team leaderboard first page');
    expect(indexesUsed(first)).toContain('leaderboard_entries_team_rank_idx');
    const middleEntry = await getLeaderboardAroundMe(db, at.middle, {
      radius: 0,
      team: middleTeam,
    });
    const later = await explainQueriesOf(db, (rdb) =>
      getLeaderboard(rdb, {
        limit: 20,
        team: middleTeam,
        after: { ...middleEntry.entry, board: leaderboardCursorBoard('all', { team: middleTeam }) },
      }),
    );
    expectIndexed(later, 'team leaderboard later page');
    expect(indexesUsed(later)).toContain('leaderboard_entries_team_rank_idx');
  });

  it.each(['top', 'middle', 'bottom'] as const)(
    'GET /api/leaderboard/me for the user at the %s, on the whole board and the team board',
    async (where) => {
      const global = await explainQueriesOf(db, (rdb) =>
        getLeaderboardAroundMe(rdb, at[where], { radius: 5 }),
      );
      expectIndexed(global, `around me (${where})`);
      expect(indexesUsed(global)).toContain('leaderboard_entries_rank_idx');
      if (where === 'middle') {
        const team = await explainQueriesOf(db, (rdb) =>
          getLeaderboardAroundMe(rdb, at.middle, { radius: 5, team: middleTeam }),
        );
        expectIndexed(team, 'around me on a team board');
        expect(indexesUsed(team)).toContain('leaderboard_entries_team_rank_idx');
      }
    },
  );

  it('GET /api/user/points: first page and a later page', async () => {
    const userId = (await findUserByIdentity(db, ISSUER, 'explain-7'))!.id;
    const first = await getPointsHistory(db, userId, { limit: 2 });
    expect(first.nextCursor).not.toBeNull();
    expectIndexed(
      await explainQueriesOf(db, (rdb) => getPointsHistory(rdb, userId, { limit: 20 })),
      'points first page',
    );
    const lastId = String(first.entries.at(-1)!.id);
    const later = await explainQueriesOf(db, (rdb) =>
      getPointsHistory(rdb, userId, { limit: 20, beforeId: lastId }),
    );
    expectIndexed(later, 'points later page');
    expect(indexesUsed(later)).toContain('points_ledger_user_id_idx');
  });

  it('GET /api/user/quests', async () => {
    const userId = (await findUserByIdentity(db, ISSUER, 'explain-7'))!.id;
    const catalog = await new CatalogCache(db, { refreshMs: 60_000 }).current();
    expectIndexed(
      await explainQueriesOf(db, (rdb) => getQuests(rdb, catalog, userId, new Date())),
      'quests',
    );
  });
});
