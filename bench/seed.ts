/**
 * `npm run bench:seed -- [--users N] [--score-spread K] [--database-url URL] [--issuer ISS] [--no-measure]`
 *
 * Seeds N onboarded users (bench/seed-data.ts says what they look like) and
 * measures, on that data, what grows with the number of users:
 *
 * - rank (findRankedEntry, the one statement GET /api/leaderboard/me and the
 *   pages build on) at the top, in the middle, at the bottom and inside the
 *   largest tie group, with the rows and buffers its plan read; around-me
 *   (radius 5); the first page (20);
 * - first-time onboarding and PATCH through the service functions, as the
 *   procedures call them (p50/p99 of sequential calls).
 *
 * Scores take the quests' five values (huge ties) unless `--score-spread K`
 * spreads them uniformly over [0, K), as points from activity do (about
 * min(N, K) distinct scores). The spread is chosen when seeding: a seeded
 * database keeps the scores it was seeded with.
 *
 * With `--database-url` the database at URL is created if missing, migrated,
 * seeded and left in place (a second run on a seeded database only measures),
 * so a service started with DATABASE_URL=URL and an identity provider for ISS
 * serves users `seed-1` … `seed-N`. Without it, a new database named after
 * the time is created on BENCH_ADMIN_URL and dropped afterwards
 * (BENCH_KEEP_DB=1 keeps it). N defaults to BENCH_SEED_USERS or 1,000,000.
 * The report is printed and written to bench/results/seed-<time>.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createDatabase } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { findRankedEntry } from '../db/queries/leaderboard.js';
import { ensureUser } from '../db/queries/users.js';
import { getLeaderboard, getLeaderboardAroundMe } from '../src/services/leaderboard.js';
import { onboard, updateProfile, type WriteDeps } from '../src/services/profile.js';
import { UserStateCache } from '../src/services/state-cache.js';
import { CatalogCache } from '../src/services/catalog.js';
import { isSeeded, seedUsers } from './seed-data.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: args } = parseArgs({
  options: {
    users: { type: 'string' },
    'database-url': { type: 'string' },
    issuer: { type: 'string' },
    'score-spread': { type: 'string' },
    'no-measure': { type: 'boolean', default: false },
    // Rank timing only: users, all-time entries and counts (bench/seed-data.ts).
    'entries-only': { type: 'boolean', default: false },
  },
});
const users = Number(args.users ?? process.env.BENCH_SEED_USERS ?? 1_000_000);
if (!Number.isSafeInteger(users) || users < 1)
  throw new Error('--users must be a positive integer');
const scoreSpread = args['score-spread'] === undefined ? undefined : Number(args['score-spread']);
if (scoreSpread !== undefined && !(Number.isSafeInteger(scoreSpread) && scoreSpread >= 1))
  throw new Error('--score-spread must be a positive integer');
const issuer = args.issuer ?? 'https://seed.bench.invalid';
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
/** The default handle settings (HANDLE_CHANGE_COOLDOWN_DAYS, HANDLE_RESERVE_DAYS). */
const CONFIG = { handles: { cooldownDays: 30, reserveDays: 14 } };
const out: string[] = [];

function say(line = ''): void {
  out.push(line);
  process.stdout.write(`${line}\n`);
}

/** The database URL to seed, and whether to drop it afterwards. */
async function target(): Promise<{ url: string; drop: (() => Promise<void>) | undefined }> {
  const given = args['database-url'];
  const url = new URL(
    given ?? process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  );
  if (!given) url.pathname = `/bench_seed_${stamp.replace(/-/g, '_').toLowerCase()}`;
  const name = decodeURIComponent(url.pathname.slice(1));
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const admin = new Kysely<unknown>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ connectionString: adminUrl.href, max: 1 }),
    }),
  });
  try {
    const exists = await sql`SELECT 1 FROM pg_database WHERE datname = ${name}`.execute(admin);
    if (exists.rows.length === 0) await sql`CREATE DATABASE ${sql.id(name)}`.execute(admin);
  } finally {
    await admin.destroy();
  }
  const drop =
    given || process.env.BENCH_KEEP_DB === '1'
      ? undefined
      : async () => {
          const again = new Kysely<unknown>({
            dialect: new PostgresDialect({
              pool: new pg.Pool({ connectionString: adminUrl.href, max: 1 }),
            }),
          });
          await sql`DROP DATABASE IF EXISTS ${sql.id(name)} WITH (FORCE)`.execute(again);
          await again.destroy();
        };
  return { url: url.href, drop };
}

const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Median and p99 of `runs` sequential calls. */
async function sample(runs: number, call: (i: number) => Promise<unknown>) {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await call(i);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}

async function main(): Promise<void> {
  const { url, drop } = await target();
  const database = await createDatabase({
    databaseUrl: url,
    dataDir: '/nonexistent',
    poolMax: 4,
    statementTimeoutMs: 6 * 3600_000,
  });
  const { db, statements } = database;
  // Each measured write is a user's first on this process: the state cache
  // (src/services/state-cache.ts) would only miss, so PATCH is read + write.
  const deps = {
    db,
    statements,
    clock: () => new Date(),
    config: CONFIG,
    userStates: new UserStateCache(0),
    catalog: new CatalogCache(db, { refreshMs: 60_000 }),
  };
  try {
    say(`# bench:seed, ${users.toLocaleString('en')} users — ${new Date().toISOString()}`);
    say();
    say(`Command: \`npm run bench:seed -- ${process.argv.slice(2).join(' ')}\``);
    say();
    await migrateToLatest(db);
    if (await isSeeded(db, issuer)) {
      say(`Already seeded for ${issuer}: measuring only.`);
    } else {
      say('Seeding (in the database, generate_series):');
      const started = performance.now();
      say(
        scoreSpread === undefined
          ? "Scores: the quests' five values."
          : `Scores: uniform in [0, ${scoreSpread.toLocaleString('en')}).`,
      );
      await seedUsers(db, {
        users,
        issuer,
        entriesOnly: args['entries-only'],
        scoreSpread,
        log: say,
      });
      say(`- total: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    const size = await sql<{ size: string }>`
      SELECT pg_size_pretty(pg_database_size(current_database())) AS size`.execute(db);
    say(`- database size: ${size.rows[0]?.size}`);
    say();
    if (args['no-measure']) return;
    await measure(deps);
  } finally {
    await database.close();
    await drop?.();
    const dir = path.join(ROOT, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `seed-${stamp}.md`), `${out.join('\n')}\n`);
  }
}

async function measure(
  deps: WriteDeps & {
    db: Kysely<import('../db/schema.js').Database>;
    clock: () => Date;
  },
) {
  const { db } = deps;
  const count = Number(
    (
      await sql<{ n: string }>`SELECT count(*)::text AS n FROM leaderboard_entries
                               WHERE board = 'all'`.execute(db)
    ).rows[0]!.n,
  );
  // The user at a given 0-based offset of the rank order (an index walk, only to pick them).
  const at = async (offset: number) =>
    (
      await sql<{ userId: string }>`SELECT user_id FROM leaderboard_entries WHERE board = 'all'
        ORDER BY -points, reached_seq, user_id OFFSET ${offset}::bigint LIMIT 1`.execute(db)
    ).rows[0]!.userId;
  const biggest = (
    await sql<{ points: number; n: string; before: string }>`
      WITH groups AS (SELECT points, count(*) AS n FROM leaderboard_entries
                      WHERE board = 'all' GROUP BY points)
      SELECT points, n::text, (SELECT coalesce(sum(n), 0) FROM groups g2
                               WHERE g2.points > g.points)::text AS before
      FROM groups g ORDER BY n DESC LIMIT 1`.execute(db)
  ).rows[0]!;
  const picks: Array<[string, number]> = [
    ['top (rank 1)', 0],
    ['rank 10', 9],
    ['middle', Math.floor(count / 2)],
    ['bottom', count - 1],
    [
      `middle of the largest tie group (${Number(biggest.n).toLocaleString('en')} entries on ` +
        `${biggest.points} points)`,
      Number(biggest.before) + Math.floor(Number(biggest.n) / 2),
    ],
  ];
  say(`## Rank on the all-time board (${count.toLocaleString('en')} entries)`);
  say();
  say(
    '| entry | rank | findRankedEntry p50 / p99 (200 calls) | EXPLAIN ANALYZE execution ' +
      '| rank_counts rows read | entries rows read | buffers hit / read |',
  );
  say('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [label, offset] of picks) {
    const userId = await at(offset);
    const entry = await findRankedEntry(db, userId);
    if (entry?.rank !== offset + 1) {
      throw new Error(`rank ${entry?.rank} for offset ${offset}: expected ${offset + 1}`);
    }
    const { p50, p99 } = await sample(200, () => findRankedEntry(db, userId));
    const plan = await explainRank(db, userId);
    say(
      `| ${label} | ${entry.rank.toLocaleString('en')} | ${ms(p50)} / ${ms(p99)} | ` +
        `${ms(plan.executionMs)} | ${plan.rowsRead.rank_counts ?? 0} | ` +
        `${plan.rowsRead.leaderboard_entries ?? 0} | ${plan.buffersHit} / ${plan.buffersRead} |`,
    );
  }
  const teamUser = await at(Math.floor(count / 3));
  const teamEntry = (
    await sql<{ team: string }>`SELECT team_key AS team FROM leaderboard_entries
      WHERE board = 'all' AND user_id = ${teamUser}`.execute(db)
  ).rows[0]?.team;
  if (teamEntry) {
    const { p50, p99 } = await sample(200, () =>
      findRankedEntry(db, teamUser, { team: teamEntry }),
    );
    const rank = (await findRankedEntry(db, teamUser, { team: teamEntry }))?.rank;
    say(
      `| a fan on the "${teamEntry}" board | ${rank?.toLocaleString('en')} | ${ms(p50)} / ${ms(p99)} | | | | |`,
    );
  }
  say();
  const middle = await at(Math.floor(count / 2));
  const around = await sample(200, () => getLeaderboardAroundMe(db, middle, { radius: 5 }));
  const first = await sample(200, () => getLeaderboard(db, { limit: 20 }));
  say(`- around-me (radius 5, middle user): p50 ${ms(around.p50)}, p99 ${ms(around.p99)}`);
  say(`- first page (20): p50 ${ms(first.p50)}, p99 ${ms(first.p99)}`);

  const run = Date.now().toString(36);
  const onboarding = await sample(200, async (i) => {
    const user = await ensureUser(db, issuer, `fresh-${run}-${i}`);
    await onboard(deps, user.id, {
      name: 'New Fan',
      handle: `fresh_${run}_${i}`,
      favoriteTeam: 'Team 3',
    });
  });
  say(
    `- first-time onboarding (users insert + onboard(), 200 sequential): ` +
      `p50 ${ms(onboarding.p50)}, p99 ${ms(onboarding.p99)}`,
  );
  const seeded = await sql<{ id: string }>`SELECT id FROM users WHERE issuer = ${issuer}
      AND subject LIKE 'seed-%' ORDER BY random() LIMIT 200`.execute(db);
  if (args['entries-only']) return; // the seeded users have no profile or quests to PATCH
  const patch = await sample(200, (i) =>
    updateProfile(deps, seeded.rows[i % seeded.rows.length]!.id, { location: `Moved ${run} ${i}` }),
  );
  say(
    `- PATCH (updateProfile, location, 200 sequential): p50 ${ms(patch.p50)}, p99 ${ms(patch.p99)}`,
  );
}

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/**
 * The rank statement under EXPLAIN (ANALYZE, BUFFERS): its execution time,
 * the rows its scans read per table (kept or filtered out, over every loop:
 * what db/queries/rank.ts bounds) and the shared buffers of the whole plan.
 */
async function explainRank(db: Kysely<import('../db/schema.js').Database>, userId: string) {
  const compiled: CompiledQuery[] = [];
  const recording = db.withPlugin({
    transformQuery: (args) => {
      compiled.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  await findRankedEntry(recording, userId);
  const query = compiled[0]!;
  const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query.sql}`, [
      ...query.parameters,
    ]),
  );
  const raw = result.rows[0]!['QUERY PLAN'];
  const [explained] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{
    Plan: PlanNode & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
    'Execution Time': number;
  }>;
  const rowsRead: Record<string, number> = {};
  const walk = (node: PlanNode) => {
    const relation = node['Relation Name'];
    if (relation) {
      rowsRead[relation] =
        (rowsRead[relation] ?? 0) +
        (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops'];
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(explained!.Plan);
  return {
    executionMs: explained!['Execution Time'],
    rowsRead,
    buffersHit: explained!.Plan['Shared Hit Blocks'],
    buffersRead: explained!.Plan['Shared Read Blocks'],
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`seed failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
