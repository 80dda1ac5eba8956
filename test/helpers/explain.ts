import {
  CompiledQuery,
  createQueryId,
  sql,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { rebuildRankCounts } from '../../db/queries/rank.js';
import type { Database } from '../../db/schema.js';

/**
 * EXPLAIN for the exact statements a service function runs: a plugin records
 * every query the function builds, and each one is compiled again with its
 * parameters and explained on the same database.
 */
class RecordQueries implements KyselyPlugin {
  readonly nodes: RootOperationNode[] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push(args.node);
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

export interface ExplainedQuery {
  sql: string;
  plan: PlanNode;
  /** Every node of the plan, depth first. */
  nodes: PlanNode[];
  /** One line per node: "Index Only Scan leaderboard_entries_rank_idx", … */
  summary: string[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}

/**
 * Runs `run` with a recording database, then EXPLAINs every statement it
 * issued; with `analyze`, runs each again under EXPLAIN ANALYZE, so every
 * node carries the rows it produced ('Actual Rows', 'Actual Loops').
 */
export async function explainQueriesOf(
  db: Kysely<Database>,
  run: (recording: Kysely<Database>) => Promise<unknown>,
  options: { analyze?: boolean } = {},
): Promise<ExplainedQuery[]> {
  const recorder = new RecordQueries();
  await run(db.withPlugin(recorder));
  const explained: ExplainedQuery[] = [];
  for (const node of recorder.nodes) {
    const compiled = db.getExecutor().compileQuery(node, createQueryId());
    const result = await db.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(
        `EXPLAIN (${options.analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${compiled.sql}`,
        [...compiled.parameters],
      ),
    );
    const raw = result.rows[0]!['QUERY PLAN'];
    const json = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
    const plan = json[0]!.Plan;
    const nodes = flatten(plan);
    explained.push({
      sql: compiled.sql,
      plan,
      nodes,
      summary: nodes.map((n) =>
        [
          n['Node Type'],
          n['Index Name'] ?? n['Relation Name'],
          n['Index Cond'] ? `(Index Cond: ${String(n['Index Cond'])})` : undefined,
          n.Filter ? `(Filter: ${String(n.Filter)})` : undefined,
        ]
          .filter(Boolean)
          .join(' '),
      ),
    });
  }
  return explained;
}

/** Sizes for the EXPLAIN checks: what a busy season of a fan app looks like. */
export const EXPLAIN_SIZES = {
  users: 100_000,
  teams: 50,
  /** Users with ledger and quest rows (5 each). */
  activeUsers: 20_000,
} as const;

/**
 * Seeds users, profiles, leaderboard entries (team_key kept as the service
 * keeps it), ledger entries and quest rows with set-based SQL, then VACUUM
 * ANALYZE so the planner works from real statistics.
 */
export async function seedForExplain(db: Kysely<Database>, issuer: string): Promise<void> {
  const { users, teams, activeUsers } = EXPLAIN_SIZES;
  await sql`
    INSERT INTO users (issuer, subject, onboarded_at, created_at, updated_at)
    SELECT ${issuer}, 'explain-' || g, now(), now(), now()
    FROM generate_series(1, ${users}::int) AS g`.execute(db);
  await sql`
    INSERT INTO profiles (user_id, handle, name, favorite_team)
    SELECT id, 'h' || substr(subject, 9), 'Fan ' || substr(subject, 9),
           CASE WHEN substr(subject, 9)::int % 10 = 0 THEN NULL
                ELSE 'Team ' || (substr(subject, 9)::int % ${teams}::int) END
    FROM users WHERE issuer = ${issuer}`.execute(db);
  // Points in steps of 25 (as quests award them), so many users tie on points.
  await sql`
    INSERT INTO leaderboard_entries
      (board, user_id, points, reached_seq, reached_at, updated_at, team_key)
    SELECT 'all', id, points,
           (SELECT nextval('leaderboard_reached_seq')) + row_number() OVER (ORDER BY reached_at),
           reached_at, now(), team_key
    FROM (
      SELECT u.id, 25 * floor(random() * 40)::int AS points,
             now() - floor(random() * 86400000000) * interval '1 microsecond' AS reached_at,
             lower(p.favorite_team) AS team_key
      FROM users u JOIN profiles p ON p.user_id = u.id
      WHERE u.issuer = ${issuer}
    ) AS e`.execute(db);
  // Later writes take numbers after these.
  await sql`SELECT setval('leaderboard_reached_seq', (SELECT max(reached_seq) FROM leaderboard_entries))`.execute(
    db,
  );
  await rebuildRankCounts(db);
  await sql`
    INSERT INTO points_ledger (user_id, delta, reason, quest_id, idempotency_key, balance_after)
    SELECT u.id, 25, 'quest_completed', 'q' || k, 'seed:' || k, 25 * k
    FROM users u CROSS JOIN generate_series(1, 5) AS k
    WHERE u.issuer = ${issuer} AND substr(u.subject, 9)::int <= ${activeUsers}::int`.execute(db);
  await sql`
    INSERT INTO user_quests (user_id, quest_id, progress, target, tiers_reached, status, updated_at)
    SELECT u.id, q, 1, 1, 1, 'completed', now()
    FROM users u
    CROSS JOIN unnest(ARRAY['welcome','claim_handle','pick_team','name_rival','complete_profile']) AS q
    WHERE u.issuer = ${issuer} AND substr(u.subject, 9)::int <= ${activeUsers}::int`.execute(db);
  // Active users have a streak too (the quests read lists streaks beside quests).
  await sql`
    INSERT INTO user_streaks (user_id, streak_id, current, best, last_period_start, run_started_at)
    SELECT u.id, 'matchday_streak', 1, 1, date_trunc('week', now()), date_trunc('week', now())
    FROM users u
    WHERE u.issuer = ${issuer} AND substr(u.subject, 9)::int <= ${activeUsers}::int`.execute(db);
  await sql`VACUUM ANALYZE`.execute(db);
}
