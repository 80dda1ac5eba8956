/**
 * The one data-modifying statement that applies a plan (plan.ts), built
 * from parts: one part per fact of a write (does it touch the profile, the
 * board entries, the quests, the ledger, the handle, the outbox; does it
 * return the rank, the history, the state it found). Each part decides,
 * in one place, whether the plan needs it, the values it binds and the SQL
 * it adds. Adding an effect is adding a part (and its plan field).
 *
 * The first CTE is the guard:
 *
 *     UPDATE users SET version = version + 1 WHERE id = $1 AND version = $2
 *
 * and every other CTE draws its rows from it (`… FROM guard g`), so when
 * another write landed since the read (the version moved) the guard matches
 * no row and the whole statement changes nothing. Data-modifying CTEs always
 * run to completion, referenced or not; a plain SELECT CTE runs only if the
 * final SELECT reads it. Every CTE sees the same snapshot (from before the
 * write) and the same `now()`: one clock for every row of a write. No CTE may
 * take a table's name: the state read returned on a stale write names them.
 *
 * The text depends only on which parts a plan has (and the few choices a
 * part keys on), never on the values, which are all bound: it is built and
 * compiled once per combination, with Slots for the values, and kept in the
 * database handle's CompiledStatements (db/statements.ts); a write only
 * computes its parts' values and fills them in. Only the parts a plan needs
 * are sent: planning CTEs that write nothing cost more than running the ones
 * that do.
 */
import { sql, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS } from '../../profile-fields.js';
import { ALL_TIME_BOARD, type Database, type UserRow } from '../../schema.js';
import { fill, Slot, type CompiledStatements } from '../../statements.js';
import { teamKey } from '../../team-key.js';
import { auditValues } from '../audit.js';
import { notificationOf } from '../events.js';
import { addCounts, countDeltas, positionsOf, rankExpression, type CountDelta } from '../rank.js';
import type { UserWritePlan } from './plan.js';
import {
  scopeJson,
  userStateQuery,
  type BoardEntry,
  type LedgerJson,
  type ProfileJson,
  type QuestJson,
  type StateRow,
} from './state.js';

/**
 * The statement's one row: the guard's user row (all null when it matched
 * none), the statement's clock, and a column per part that returns something
 * (absent when the plan has no such part).
 */
export interface WriteRow extends UserRow {
  writtenAt: Date;
  writtenProfile?: ProfileJson;
  writtenEntries?: Array<BoardEntry & { board: string }>;
  writtenQuests?: QuestJson[];
  /** The ledger rows this write inserted, newest first. */
  newLedger?: LedgerJson[];
  /** The newest ledger rows from before the write, newest first. */
  olderLedger?: LedgerJson[];
  rank?: string | null;
  /** How many notifications the outbox part sent (read only so that its NOTIFY runs). */
  notified?: unknown;
  /** Only when the guard matched no row: the state the statement found, or null without a user. */
  currentState?: StateRow | null;
}

/** The statement applying `plan`, compiled once per combination of parts. */
export function writeQuery(statements: CompiledStatements, plan: UserWritePlan): CompiledQuery {
  const parts = PARTS.map((part) => part(plan));
  const key = parts.map((part) => part?.key ?? '').join(' ');
  const template = statements.template(`user write ${key}`, (db) =>
    writeStatement(db, parts).compile(db),
  );
  return fill(
    template,
    parts.map((part) => part?.values),
  );
}

type Cte = readonly [name: string, statement: RawBuilder<unknown>];
type Column = readonly [name: string, value: RawBuilder<unknown>];

/** A part's place in the statement, known when it is built. */
interface Context {
  db: Kysely<Database>;
  /** The CTEs the parts before this one added. */
  ctes: ReadonlySet<string>;
}

interface Part {
  /** What the statement's text takes from this part: its name and any choice it keys on. */
  key: string;
  values: object;
  /** Its CTEs and result columns, with a Slot for each of its values. */
  build(v: Record<string, Slot<never>>, context: Context): { ctes?: Cte[]; columns?: Column[] };
}

/** A part whose SQL can use only its own values (as Slots). */
function part<V extends object>(
  key: string,
  values: V,
  build: (
    v: { readonly [K in keyof V]-?: Slot<never> },
    context: Context,
  ) => { ctes?: Cte[]; columns?: Column[] },
): Part {
  return { key, values, build: build as Part['build'] };
}

function writeStatement(
  db: Kysely<Database>,
  parts: readonly (Part | undefined)[],
): RawBuilder<WriteRow> {
  const ctes = new Set<string>();
  const withs: RawBuilder<unknown>[] = [];
  const columns: RawBuilder<unknown>[] = [];
  parts.forEach((part, index) => {
    if (!part) return;
    // Each value's Slot reads it from the part's values, at the part's place.
    const slots = new Proxy({} as Record<string, Slot<never>>, {
      get: (_target, key) =>
        new Slot(
          (values: readonly (Record<string | symbol, unknown> | undefined)[]) =>
            values[index]?.[key],
        ),
    });
    const added = part.build(slots, { db, ctes });
    for (const [name, statement] of added.ctes ?? []) {
      ctes.add(name);
      withs.push(sql`${sql.id(name)} AS (${statement})`);
    }
    for (const [name, value] of added.columns ?? []) columns.push(sql`${value} AS ${sql.id(name)}`);
  });
  return sql<WriteRow>`WITH ${sql.join(withs)}
    SELECT g.*, now() AS written_at${columns.length > 0 ? sql`, ${sql.join(columns)}` : sql``}
    FROM (SELECT 1) AS one LEFT JOIN guard g ON true`;
}

/** The parts, in statement order: a part may read the CTEs of those before it. */
const PARTS: ReadonlyArray<(plan: UserWritePlan) => Part | undefined> = [
  guardPart,
  profilePart,
  boardsPart,
  questsPart,
  streaksPart,
  ledgerPart,
  activityPart,
  handlePart,
  visibilityPart,
  auditPart,
  outboxPart,
  rankPart,
  historyPart,
  currentStatePart,
];

function guardPart(plan: UserWritePlan): Part {
  const { userId, expectedVersion, onboard } = plan;
  const ban = plan.ban ?? null;
  return part(`guard${ban ? '+ban' : ''}`, { userId, expectedVersion, onboard, ban }, (v) => ({
    ctes: [
      [
        'guard',
        sql`UPDATE users SET
          version = version + 1,
          ${
            ban
              ? sql`banned_at = CASE WHEN ${v.ban}::text = 'ban' THEN coalesce(banned_at, now()) END,`
              : sql``
          }
          onboarded_at = CASE WHEN ${v.onboard} THEN coalesce(onboarded_at, now())
                              ELSE onboarded_at END,
          updated_at = CASE WHEN ${v.onboard} AND onboarded_at IS NULL THEN now()
                            ELSE updated_at END
        WHERE id = ${v.userId} AND version = ${v.expectedVersion}
        RETURNING *`,
      ],
    ],
  }));
}

const PROFILE_COLUMNS = PROFILE_FIELDS.map((field) => sql.raw(PROFILE_FIELD_TABLE[field].column));

function profilePart(plan: UserWritePlan): Part | undefined {
  if (!plan.profile) return undefined;
  return part('profile', plan.profile, (v) => ({
    ctes: [
      [
        'profile',
        sql`INSERT INTO profiles (user_id, ${sql.join(PROFILE_COLUMNS)}, created_at, updated_at)
        SELECT g.id, ${sql.join(PROFILE_FIELDS.map((field) => sql`${v[field]}::text`))}, now(), now()
        FROM guard g
        ON CONFLICT (user_id) DO UPDATE SET
          ${sql.join(PROFILE_COLUMNS.map((column) => sql`${column} = excluded.${column}`))},
          updated_at = now()
        RETURNING *`,
      ],
    ],
    columns: [['written_profile', sql`(SELECT to_json(p) FROM profile p)`]],
  }));
}

/**
 * The board entries: the statement takes one number from
 * `leaderboard_reached_seq` for every entry whose points change (who reached
 * a score first = who took the smaller number), writes the entries, and
 * moves each changed entry's `rank_counts` rows (−1 on the old position's
 * rows, +1 on the new, merged by key, locked in key order: db/queries/rank.ts).
 * A banned fan's entries are stored hidden and move no count (visibilityPart).
 */
function boardsPart(plan: UserWritePlan): Part | undefined {
  if (plan.boards.length === 0) return undefined;
  const team = plan.team.favoriteTeam;
  const entries = plan.boards.map(({ board, before, points }) => {
    const keepsPlace = before !== undefined && before.points === points;
    const newTeam = before === undefined || plan.team.changed;
    return {
      board,
      points,
      seq: keepsPlace ? before.seq : null,
      new_team: newTeam,
      team_key: newTeam ? null : before.teamKey,
    };
  });
  const deltas: CountDelta[] = plan.boards.flatMap(({ board, before }, index) => {
    const after = entries[index]!;
    const teamKey = after.new_team ? 'new' : after.team_key;
    return [
      ...(before ? countDeltas(board, before, -1) : []),
      ...countDeltas(board, { points: after.points, seq: after.seq, teamKey }, 1),
    ];
  });
  const values = {
    newSeq: entries.some((entry) => entry.seq === null),
    newTeamKey: team === null ? null : teamKey(team),
    entries: JSON.stringify(entries),
    deltas: JSON.stringify(deltas),
  };
  return part('boards', values, (v) => ({
    ctes: [
      [
        // One number for every entry whose points change: who reached a score first.
        'seq',
        sql`SELECT CASE WHEN ${v.newSeq} THEN nextval('leaderboard_reached_seq') END AS seq
        FROM guard`,
      ],
      [
        'entries',
        sql`INSERT INTO leaderboard_entries
          (board, user_id, points, reached_seq, reached_at, updated_at, team_key, hidden)
        SELECT b.board, g.id, b.points, coalesce(b.seq, s.seq), now(), now(),
               CASE WHEN b.new_team THEN ${v.newTeamKey}::text ELSE b.team_key END,
               g.banned_at IS NOT NULL
        FROM guard g CROSS JOIN seq s
        CROSS JOIN jsonb_to_recordset(${v.entries}::jsonb)
          AS b(board text, points integer, seq bigint, new_team boolean, team_key text)
        ON CONFLICT (board, user_id) DO UPDATE SET
          points = excluded.points,
          reached_seq = excluded.reached_seq,
          reached_at = CASE WHEN leaderboard_entries.reached_seq = excluded.reached_seq
                            THEN leaderboard_entries.reached_at ELSE now() END,
          team_key = excluded.team_key,
          hidden = excluded.hidden,
          updated_at = now()
        RETURNING board, points, reached_seq, team_key`,
      ],
      [
        // −1 on the cells of each entry's old position, +1 on its new one,
        // merged by key (a move that keeps a key cancels out), in key order,
        // each key on a random shard (db/queries/rank.ts).
        'counts',
        sql`${addCounts(sql`
          SELECT d.board,
                 CASE WHEN d.new_team THEN ${v.newTeamKey}::text ELSE d.team_key END AS team_key,
                 d.points, coalesce(d.seq, s.seq) AS seq, d.n
          FROM guard g CROSS JOIN seq s
          CROSS JOIN jsonb_to_recordset(${v.deltas}::jsonb)
            AS d(board text, team_key text, new_team boolean, points integer, seq bigint,
                 n integer)
          WHERE g.banned_at IS NULL`)}
        RETURNING 1`,
      ],
    ],
    columns: [
      [
        'written_entries',
        sql`(SELECT coalesce(json_agg(json_build_object('board', e.board, 'points', e.points,
                'seq', e.reached_seq::text, 'team_key', e.team_key)), '[]')
         FROM entries e)`,
      ],
    ],
  }));
}

function questsPart(plan: UserWritePlan): Part | undefined {
  if (plan.quests.length === 0) return undefined;
  const quests = plan.quests.map((quest) => ({
    quest_id: quest.questId,
    period: quest.period,
    progress: quest.progress,
    target: quest.target,
    tiers_reached: quest.tiersReached,
    status: quest.status,
    completed: quest.completedAt !== null,
  }));
  return part('quests', { quests: JSON.stringify(quests) }, (v) => ({
    ctes: [
      [
        'quests',
        sql`INSERT INTO user_quests (user_id, quest_id, period, progress, target, tiers_reached,
                                 status, completed_at, updated_at)
        SELECT g.id, q.quest_id, q.period, q.progress, q.target, q.tiers_reached, q.status,
               CASE WHEN q.completed THEN now() END, now()
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${v.quests}::jsonb)
          AS q(quest_id text, period text, progress integer, target integer,
               tiers_reached integer, status text, completed boolean)
        ON CONFLICT (user_id, quest_id, period) DO UPDATE SET
          progress = excluded.progress,
          target = excluded.target,
          tiers_reached = excluded.tiers_reached,
          status = excluded.status,
          -- A completion time, once set, never moves.
          completed_at = coalesce(user_quests.completed_at, excluded.completed_at),
          updated_at = now()
        RETURNING quest_id, period, progress, target, tiers_reached, status, completed_at`,
      ],
    ],
    columns: [
      [
        'written_quests',
        sql`(SELECT coalesce(json_agg(json_build_object('quest_id', q.quest_id,
                'period', q.period, 'progress', q.progress, 'target', q.target,
                'tiers_reached', q.tiers_reached, 'status', q.status,
                'completed_at', q.completed_at)), '[]')
         FROM quests q)`,
      ],
    ],
  }));
}

function streaksPart(plan: UserWritePlan): Part | undefined {
  const streaks = plan.streaks ?? [];
  if (streaks.length === 0) return undefined;
  const rows = streaks.map((streak) => ({
    streak_id: streak.streakId,
    current: streak.current,
    best: streak.best,
    last_period_start: streak.lastPeriodStart?.toISOString() ?? null,
    run_started_at: streak.runStartedAt?.toISOString() ?? null,
  }));
  return part('streaks', { streaks: JSON.stringify(rows) }, (v) => ({
    ctes: [
      [
        'streaks',
        sql`INSERT INTO user_streaks (user_id, streak_id, current, best, last_period_start,
                                  run_started_at, updated_at)
        SELECT g.id, k.streak_id, k.current, k.best, k.last_period_start, k.run_started_at, now()
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${v.streaks}::jsonb)
          AS k(streak_id text, current integer, best integer, last_period_start timestamptz,
               run_started_at timestamptz)
        ON CONFLICT (user_id, streak_id) DO UPDATE SET
          current = excluded.current,
          best = excluded.best,
          last_period_start = excluded.last_period_start,
          run_started_at = excluded.run_started_at,
          updated_at = now()
        RETURNING streak_id`,
      ],
    ],
  }));
}

/**
 * Events from other services: each recorded one is a row of its own, unique
 * per (client, id) — the sender's idempotency key. A row some other write
 * inserted first (the same id sent for another fan at the same moment) makes
 * the insert fail and the statement write nothing (`event_taken`). A
 * reversal marks its event's row; the row itself stays. `recorded_at` is
 * the plan's `at`, the app's clock the write chose its week and month
 * boards by, not now(): a reversal finds the boards the points landed on
 * from it.
 */
function activityPart(plan: UserWritePlan): Part | undefined {
  const activity = plan.activity;
  if (!activity || (activity.recorded.length === 0 && !activity.reversed)) return undefined;
  const rows = activity.recorded.map((event, ord) => ({
    ord,
    client_id: event.clientId,
    event_id: event.eventId,
    type: event.type,
    type_version: event.typeVersion,
    value: event.value,
    occurred_at: event.occurredAt.toISOString(),
    body_hash: event.bodyHash,
    points: event.points,
    balance_after: event.balanceAfter,
    quests_completed: event.questsCompleted,
  }));
  const reversed = activity.reversed;
  const values = {
    events: JSON.stringify(rows),
    at: plan.at.toISOString(),
    reversedClient: reversed?.clientId ?? null,
    reversedEvent: reversed?.eventId ?? null,
  };
  const key = `activity${rows.length > 0 ? '+record' : ''}${reversed ? '+reverse' : ''}`;
  return part(key, values, (v) => ({
    ctes: [
      ...(rows.length > 0
        ? ([
            [
              'activity',
              sql`INSERT INTO activity_events (client_id, event_id, user_id, type, type_version,
                value, occurred_at, body_hash, points, balance_after, quests_completed, recorded_at)
              SELECT a.client_id, a.event_id, g.id, a.type, a.type_version, a.value, a.occurred_at,
                     a.body_hash, a.points, a.balance_after, a.quests_completed, ${v.at}::timestamptz
              FROM guard g
              CROSS JOIN jsonb_to_recordset(${v.events}::jsonb)
                AS a(ord integer, client_id text, event_id text, type text, type_version integer,
                     value integer, occurred_at timestamptz,
                     body_hash text, points integer, balance_after integer, quests_completed jsonb)
              ORDER BY a.ord
              RETURNING id`,
            ],
          ] as const)
        : []),
      ...(reversed
        ? ([
            [
              'reversal',
              sql`UPDATE activity_events a SET reversed_at = now()
              FROM guard g
              WHERE a.client_id = ${v.reversedClient}::text AND a.event_id = ${v.reversedEvent}::text
                AND a.user_id = g.id AND a.reversed_at IS NULL
              RETURNING a.id`,
            ],
          ] as const)
        : []),
    ],
  }));
}

/** A ledger row as JSON, from `l`. */
const LEDGER_JSON = sql`json_build_object('id', l.id::text, 'user_id', l.user_id,
  'delta', l.delta, 'reason', l.reason, 'quest_id', l.quest_id,
  'idempotency_key', l.idempotency_key, 'balance_after', l.balance_after,
  'created_at', l.created_at, 'recorded_at', l.recorded_at, 'source', l.source,
  'source_detail', l.source_detail)`;

/** Ledger rows as a JSON array, newest first. */
const ledgerArray = (rows: RawBuilder<unknown>) =>
  sql`(SELECT coalesce(json_agg(${LEDGER_JSON} ORDER BY l.id DESC), '[]') FROM ${rows} l)`;

function ledgerPart(plan: UserWritePlan): Part | undefined {
  if (plan.credits.length === 0) return undefined;
  const credits = plan.credits.map((credit, ord) => ({
    ord,
    delta: credit.delta,
    reason: credit.reason,
    quest_id: credit.questId,
    idempotency_key: credit.key,
    balance_after: credit.balanceAfter,
    source: credit.source,
    source_detail: credit.sourceDetail,
  }));
  const values = { credits: JSON.stringify(credits), at: plan.at.toISOString() };
  return part('ledger', values, (v) => ({
    ctes: [
      [
        'ledger',
        sql`INSERT INTO points_ledger (user_id, delta, reason, quest_id, idempotency_key,
                                   balance_after, created_at, recorded_at, source, source_detail)
        SELECT g.id, c.delta, c.reason, c.quest_id, c.idempotency_key, c.balance_after, now(),
               ${v.at}::timestamptz,
               c.source, c.source_detail
        FROM guard g
        CROSS JOIN jsonb_to_recordset(${v.credits}::jsonb)
          AS c(ord integer, delta integer, reason text, quest_id text,
               idempotency_key text, balance_after integer, source text, source_detail jsonb)
        ORDER BY c.ord
        RETURNING *`,
      ],
    ],
    columns: [['new_ledger', ledgerArray(sql`ledger`)]],
  }));
}

function handlePart(plan: UserWritePlan): Part | undefined {
  const move = plan.handle;
  if (!move) return undefined;
  const { claimKey, release, history } = move;
  const values = {
    claimKey: claimKey ?? null,
    releaseKey: release?.key ?? null,
    reserveDays: release?.reserveDays ?? 0,
    oldHandle: history.oldHandle,
    newHandle: history.newHandle,
    kind: history.kind,
  };
  const claims = claimKey !== undefined;
  const key = `handle${claims ? '+claim' : ''}${release ? '+release' : ''}`;
  return part(key, values, (v) => ({
    ctes: [
      // The claim's row, if it is the user's own or an expired reservation, is
      // removed so that the insert below can take the key; the insert reads
      // this CTE first, so the delete has happened when it runs. Any other row
      // makes the insert fail on the primary key: the statement writes nothing.
      ...(claims
        ? ([
            [
              'handle_free',
              sql`DELETE FROM handle_claims c USING guard g
              WHERE c.handle_key = ${v.claimKey}::text
                AND (c.user_id = g.id OR c.reserved_until <= now())
              RETURNING c.handle_key`,
            ],
            [
              'handle_claim',
              sql`INSERT INTO handle_claims (handle_key, user_id, reserved_until, updated_at)
              SELECT ${v.claimKey}::text, g.id, NULL, now() FROM guard g
              WHERE (SELECT count(*) FROM handle_free) >= 0
              RETURNING handle_key`,
            ],
          ] as const)
        : []),
      // Reserved until now() + 0 days is free at once: an expired reservation.
      ...(release
        ? ([
            [
              'handle_release',
              sql`UPDATE handle_claims c SET
                reserved_until = now() + make_interval(days => ${v.reserveDays}::integer),
                updated_at = now()
              FROM guard g
              WHERE c.handle_key = ${v.releaseKey}::text AND c.user_id = g.id
              RETURNING c.handle_key`,
            ],
          ] as const)
        : []),
      [
        'handle_logged',
        sql`INSERT INTO handle_history (user_id, old_handle, new_handle, kind, changed_at)
        SELECT g.id, ${v.oldHandle}::text, ${v.newHandle}::text, ${v.kind}::text, now()
        FROM guard g
        RETURNING id`,
      ],
    ],
  }));
}

/**
 * A ban hides every entry of the fan and takes each off its count rows; an
 * unban shows them and counts each again where it stands (db/queries/rank.ts).
 */
function visibilityPart(plan: UserWritePlan): Part | undefined {
  if (!plan.ban) return undefined;
  const hide = plan.ban === 'ban';
  return part(`visibility+${plan.ban}`, {}, () => ({
    ctes: [
      [
        'visibility',
        sql`UPDATE leaderboard_entries e SET hidden = ${sql.lit(hide)}
        FROM guard g
        WHERE e.user_id = g.id AND e.hidden = ${sql.lit(!hide)}
        RETURNING e.board, e.points, e.reached_seq, e.team_key`,
      ],
      [
        'visibility_counts',
        sql`${addCounts(positionsOf(sql`visibility e`, sql.lit(hide ? -1 : 1)))} RETURNING 1`,
      ],
    ],
  }));
}

/** The admin's change, in the audit log with the write that makes it (one clock). */
function auditPart(plan: UserWritePlan): Part | undefined {
  const audit = plan.audit;
  if (!audit) return undefined;
  return part('audit', auditValues(audit), (v) => ({
    ctes: [
      [
        'audited',
        sql`INSERT INTO admin_audit (actor, action, target_kind, target_key, before, after, at)
        SELECT ${v.actor}::text, ${v.action}::text, ${v.targetKind}::text, ${v.targetKey}::text,
               ${v.before}::jsonb, ${v.after}::jsonb, now()
        FROM guard g
        RETURNING id`,
      ],
    ],
  }));
}

/**
 * The outbox: the events, the user's rank moves when the plan announces them,
 * and their NOTIFY. The new ranks are the all-time entry as this statement
 * writes it, ranked over the snapshot the statement reads (db/queries/rank.ts:
 * everyone else as they were); the previous rank is the stored entry in the
 * same snapshot (null when the user had none, or was on another team's board).
 */
function outboxPart(plan: UserWritePlan): Part | undefined {
  const events = plan.events ?? [];
  const allTime = plan.boards.find((write) => write.board === ALL_TIME_BOARD);
  const announce = plan.announceRanks === true && allTime !== undefined;
  if (!announce && events.length === 0) return undefined;
  // Rank expressions are only sent where they can have a value: a previous
  // rank needs a stored all-time entry, a team rank a team.
  const before = announce && allTime.before !== undefined;
  const beforeTeam = announce && Boolean(allTime.before?.teamKey);
  const hasTeam = announce && plan.team.favoriteTeam !== null;
  const key =
    'outbox' +
    (announce ? '+ranks' : '') +
    (before ? '+before' : '') +
    (beforeTeam ? '+beforeTeam' : '') +
    (hasTeam ? '+team' : '');
  const values = {
    events: JSON.stringify(
      events.map((event, ord) => ({ ord, type: event.type, payload: event.payload })),
    ),
    eventCount: events.length,
    team: plan.team.favoriteTeam,
  };
  return part(key, values, (v) => {
    const dateText = sql`to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    // The new position (n) is ranked without the user's stored entry (me).
    const at = (alias: 'n' | 'me', teamKey: RawBuilder<string> | undefined) =>
      rankExpression({
        board: sql<string>`${ALL_TIME_BOARD}::text`,
        teamKey,
        points: sql.ref(`${alias}.points`),
        seq: sql.ref(`${alias}.reached_seq`),
        ...(alias === 'n' && { holder: sql.ref<string>('g.id') }),
      });
    const ranks: Cte = [
      // The user's ranks after the write (and before it), whether they moved or
      // not: the statement's result takes the all-time rank from here too.
      'ranks',
      sql`SELECT m.ord, m.board, m.team, m.rank::bigint AS rank,
                 m.previous_rank::bigint AS previous_rank
        FROM guard g
        JOIN entries n ON n.board = ${ALL_TIME_BOARD}
        ${
          before
            ? sql`LEFT JOIN leaderboard_entries me
                    ON me.board = ${ALL_TIME_BOARD} AND me.user_id = g.id`
            : sql``
        }
        CROSS JOIN LATERAL (
          SELECT 0 AS ord, 'global' AS board, NULL::text AS team,
                 ${at('n', undefined)} AS rank,
                 ${
                   before
                     ? sql`CASE WHEN me.user_id IS NOT NULL THEN ${at('me', undefined)} END`
                     : sql`NULL`
                 } AS previous_rank
          ${
            hasTeam
              ? sql`UNION ALL
          SELECT 1, 'team', ${v.team}::text,
                 ${at('n', sql<string>`n.team_key`)},
                 ${
                   beforeTeam
                     ? sql`CASE WHEN me.team_key = n.team_key
                               THEN ${at('me', sql<string>`me.team_key`)} END`
                     : sql`NULL`
                 }
          WHERE n.team_key IS NOT NULL`
              : sql``
          }
        ) m`,
    ];
    return {
      ctes: [
        ...(announce ? [ranks] : []),
        [
          'events',
          sql`INSERT INTO live_events (user_id, type, payload)
          SELECT g.id, e.type,
            CASE WHEN e.type = 'quest_completed' AND e.payload #>> '{quest,status}' = 'completed'
                 THEN jsonb_set(e.payload, '{quest,completedAt}', to_jsonb(${dateText}))
                 ELSE e.payload END
          FROM guard g CROSS JOIN (
            SELECT p.ord, p.type, p.payload
            FROM jsonb_to_recordset(${v.events}::jsonb) AS p(ord integer, type text, payload jsonb)
            ${
              announce
                ? sql`UNION ALL
            SELECT ${v.eventCount}::integer + r.ord, 'rank_changed',
              jsonb_build_object('board', r.board, 'team', r.team, 'rank', r.rank,
                                 'previousRank', r.previous_rank)
            FROM ranks r CROSS JOIN guard g
            WHERE r.rank IS DISTINCT FROM r.previous_rank AND g.banned_at IS NULL`
                : sql``
            }
          ) e
          ORDER BY e.ord
          RETURNING id, user_id, type, payload, created_at`,
        ],
        ['notified', notificationOf('events')],
      ],
      // A SELECT CTE runs only when read: the NOTIFY must be.
      columns: [['notified', sql`(SELECT count(*) FROM notified)`]],
    };
  });
}

/**
 * The all-time entry's rank after the write, from the same statement: the
 * outbox's `ranks` when it has them, else ranked here. Every CTE reads the
 * snapshot from before the write, and the rank counts only entries strictly
 * ahead, and leaves out the user's own stored entry (still in that
 * snapshot, ahead when the write lowers the points), and every entry visible
 * took its number before this write took its own: a user who has just
 * reached a score is last among those who hold it.
 */
function rankPart(plan: UserWritePlan): Part | undefined {
  if (!plan.rank) return undefined;
  return part('rank', {}, (_v, { ctes }) => {
    if (ctes.has('ranks')) {
      return { columns: [['rank', sql`(SELECT rank::text FROM ranks WHERE ord = 0)`]] };
    }
    // The entry as written, or as stored when this write leaves it alone.
    const stored = (column: string) =>
      sql`(SELECT ${sql.raw(column)} FROM leaderboard_entries
         WHERE board = ${ALL_TIME_BOARD} AND user_id = g.id)`;
    const position = (column: string) =>
      ctes.has('entries')
        ? sql`coalesce(
        (SELECT ${sql.raw(column)} FROM entries WHERE board = ${ALL_TIME_BOARD}), ${stored(column)})`
        : stored(column);
    const rank = rankExpression({
      board: sql<string>`${ALL_TIME_BOARD}::text`,
      teamKey: undefined,
      points: sql.ref('pos.points'),
      seq: sql.ref('pos.seq'),
      holder: sql.ref('g.id'),
    });
    return {
      columns: [
        [
          'rank',
          sql`CASE WHEN g.id IS NOT NULL THEN (SELECT ${rank}
            FROM (SELECT ${position('points')} AS points, ${position('reached_seq')} AS seq) pos)
          END`,
        ],
      ],
    };
  });
}

/**
 * The newest ledger rows from before the write: with the rows this write
 * inserted (ledgerPart), the history after it.
 */
function historyPart(plan: UserWritePlan): Part | undefined {
  if (plan.historyLimit <= 0) return undefined;
  return part('history', { limit: plan.historyLimit }, (v) => ({
    columns: [
      [
        'older_ledger',
        ledgerArray(sql`(SELECT * FROM points_ledger
          WHERE user_id = g.id ORDER BY id DESC LIMIT ${v.limit}::integer)`),
      ],
    ],
  }));
}

/**
 * For a plan made from a cached state: when the guard matches no row, the
 * state the statement finds (the state read of state.ts), so the retry
 * needs no read of its own; null when the user is gone.
 */
function currentStatePart(plan: UserWritePlan): Part | undefined {
  const scope = plan.returnStateOn;
  if (!scope) return undefined;
  const values = { userId: plan.userId, scope: scopeJson(scope) };
  return part('current state', values, (v, { db }) => ({
    columns: [
      [
        'current_state',
        sql`CASE WHEN g.id IS NULL THEN (
          SELECT to_json(s)
          FROM (SELECT ${v.userId}::uuid AS user_id, ${v.scope}::text AS scope) AS state_args
          CROSS JOIN LATERAL (${userStateQuery(
            db,
            sql.ref<string>('state_args.user_id'),
            sql.ref<string>('state_args.scope'),
          )}) s
        ) END`,
      ],
    ],
  }));
}
