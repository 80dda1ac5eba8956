/**
 * The rows a write adds or moves besides the boards: quests, streaks, the
 * ledger, the events from other services, the audit log, for every fan of
 * the statement.
 */
import { sql } from 'kysely';
import { auditValues } from '../../audit.js';
import { part, rowsOf, type Part, type Plans } from './part.js';

export function questsPart(plans: Plans): Part | undefined {
  const quests = rowsOf(plans, (plan) =>
    plan.quests.map((quest) => ({
      quest_id: quest.questId,
      period: quest.period,
      progress: quest.progress,
      target: quest.target,
      tiers_reached: quest.tiersReached,
      status: quest.status,
      completed: quest.completedAt !== null,
    })),
  );
  if (quests.length === 0) return undefined;
  return part('quests', { quests: JSON.stringify(quests) }, (v) => ({
    ctes: [
      [
        'quests',
        sql`INSERT INTO user_quests (user_id, quest_id, period, progress, target, tiers_reached,
                                 status, completed_at, updated_at)
        SELECT g.id, q.quest_id, q.period, q.progress, q.target, q.tiers_reached, q.status,
               CASE WHEN q.completed THEN now() END, now()
        FROM jsonb_to_recordset(${v.quests}::jsonb)
          AS q(user_id uuid, quest_id text, period text, progress integer, target integer,
               tiers_reached integer, status text, completed boolean)
        JOIN guard g ON g.id = q.user_id
        ON CONFLICT (user_id, quest_id, period) DO UPDATE SET
          progress = excluded.progress,
          target = excluded.target,
          tiers_reached = excluded.tiers_reached,
          status = excluded.status,
          -- A completion time, once set, never moves.
          completed_at = coalesce(user_quests.completed_at, excluded.completed_at),
          updated_at = now()
        RETURNING user_id, quest_id, period, progress, target, tiers_reached, status,
                  completed_at`,
      ],
    ],
    columns: [
      [
        'written_quests',
        sql`(SELECT coalesce(json_agg(json_build_object('quest_id', q.quest_id,
                'period', q.period, 'progress', q.progress, 'target', q.target,
                'tiers_reached', q.tiers_reached, 'status', q.status,
                'completed_at', q.completed_at)), '[]')
         FROM quests q WHERE q.user_id = f.user_id)`,
      ],
    ],
  }));
}

export function streaksPart(plans: Plans): Part | undefined {
  const streaks = rowsOf(plans, (plan) =>
    (plan.streaks ?? []).map((streak) => ({
      streak_id: streak.streakId,
      current: streak.current,
      best: streak.best,
      last_period_start: streak.lastPeriodStart?.toISOString() ?? null,
      run_started_at: streak.runStartedAt?.toISOString() ?? null,
    })),
  );
  if (streaks.length === 0) return undefined;
  return part('streaks', { streaks: JSON.stringify(streaks) }, (v) => ({
    ctes: [
      [
        'streaks',
        sql`INSERT INTO user_streaks (user_id, streak_id, current, best, last_period_start,
                                  run_started_at, updated_at)
        SELECT g.id, k.streak_id, k.current, k.best, k.last_period_start, k.run_started_at, now()
        FROM jsonb_to_recordset(${v.streaks}::jsonb)
          AS k(user_id uuid, streak_id text, current integer, best integer,
               last_period_start timestamptz, run_started_at timestamptz)
        JOIN guard g ON g.id = k.user_id
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
 * inserted first (the same id sent for another fan at the same moment)
 * makes the insert fail and the statement write nothing (`event_taken`;
 * apply.ts then writes each fan alone). A reversal marks its event's row;
 * the row itself stays. `recorded_at` is the plan's `at`, the app's clock
 * the write chose its week and month boards by, not now(): a reversal finds
 * the boards the points landed on from it.
 */
export function activityPart(plans: Plans): Part | undefined {
  const events = rowsOf(plans, (plan) =>
    (plan.activity?.recorded ?? []).map((event) => ({
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
      recorded_at: plan.at.toISOString(),
    })),
  ).map((row, ord) => ({ ...row, ord }));
  const reversals = rowsOf(plans, (plan) => {
    const reversed = plan.activity?.reversed;
    return reversed ? [{ client_id: reversed.clientId, event_id: reversed.eventId }] : [];
  });
  if (events.length === 0 && reversals.length === 0) return undefined;
  const values = { events: JSON.stringify(events), reversals: JSON.stringify(reversals) };
  const key = `activity${events.length > 0 ? '+record' : ''}${reversals.length > 0 ? '+reverse' : ''}`;
  return part(key, values, (v) => ({
    ctes: [
      ...(events.length > 0
        ? ([
            [
              'activity',
              sql`INSERT INTO activity_events (client_id, event_id, user_id, type, type_version,
                value, occurred_at, body_hash, points, balance_after, quests_completed, recorded_at)
              SELECT a.client_id, a.event_id, g.id, a.type, a.type_version, a.value, a.occurred_at,
                     a.body_hash, a.points, a.balance_after, a.quests_completed, a.recorded_at
              FROM jsonb_to_recordset(${v.events}::jsonb)
                AS a(ord integer, user_id uuid, client_id text, event_id text, type text,
                     type_version integer, value integer, occurred_at timestamptz,
                     body_hash text, points integer, balance_after integer,
                     quests_completed jsonb, recorded_at timestamptz)
              JOIN guard g ON g.id = a.user_id
              ORDER BY a.ord
              RETURNING id`,
            ],
          ] as const)
        : []),
      ...(reversals.length > 0
        ? ([
            [
              'reversal',
              sql`UPDATE activity_events a SET reversed_at = now()
              FROM jsonb_to_recordset(${v.reversals}::jsonb)
                AS r(user_id uuid, client_id text, event_id text)
              JOIN guard g ON g.id = r.user_id
              WHERE a.client_id = r.client_id AND a.event_id = r.event_id
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

/** Ledger rows (alias l) as a JSON array, newest first. */
export const ledgerArray = (rows: ReturnType<typeof sql>) =>
  sql`(SELECT coalesce(json_agg(${LEDGER_JSON} ORDER BY l.id DESC), '[]') FROM ${rows})`;

export function ledgerPart(plans: Plans): Part | undefined {
  const credits = rowsOf(plans, (plan) =>
    plan.credits.map((credit) => ({
      delta: credit.delta,
      reason: credit.reason,
      quest_id: credit.questId,
      idempotency_key: credit.key,
      balance_after: credit.balanceAfter,
      source: credit.source,
      source_detail: credit.sourceDetail,
      recorded_at: plan.at.toISOString(),
    })),
  ).map((row, ord) => ({ ...row, ord }));
  if (credits.length === 0) return undefined;
  return part('ledger', { credits: JSON.stringify(credits) }, (v) => ({
    ctes: [
      [
        'ledger',
        sql`INSERT INTO points_ledger (user_id, delta, reason, quest_id, idempotency_key,
                                   balance_after, created_at, recorded_at, source, source_detail)
        SELECT g.id, c.delta, c.reason, c.quest_id, c.idempotency_key, c.balance_after, now(),
               c.recorded_at, c.source, c.source_detail
        FROM jsonb_to_recordset(${v.credits}::jsonb)
          AS c(ord integer, user_id uuid, delta integer, reason text, quest_id text,
               idempotency_key text, balance_after integer, source text, source_detail jsonb,
               recorded_at timestamptz)
        JOIN guard g ON g.id = c.user_id
        ORDER BY c.ord
        RETURNING *`,
      ],
    ],
    columns: [['new_ledger', ledgerArray(sql`ledger l WHERE l.user_id = f.user_id`)]],
  }));
}

/** The admin's change, in the audit log with the write that makes it (one clock). */
export function auditPart(plans: Plans): Part | undefined {
  const entries = rowsOf(plans, (plan) => {
    if (!plan.audit) return [];
    const { actor, action, targetKind, targetKey } = auditValues(plan.audit);
    const { before, after } = plan.audit;
    return [
      {
        actor,
        action,
        target_kind: targetKind,
        target_key: targetKey,
        before: before === undefined ? null : before,
        after: after === undefined ? null : after,
      },
    ];
  });
  if (entries.length === 0) return undefined;
  return part('audit', { entries: JSON.stringify(entries) }, (v) => ({
    ctes: [
      [
        'audited',
        sql`INSERT INTO admin_audit (actor, action, target_kind, target_key, before, after, at)
        SELECT a.actor, a.action, a.target_kind, a.target_key, a.before, a.after, now()
        FROM jsonb_to_recordset(${v.entries}::jsonb)
          AS a(user_id uuid, actor text, action text, target_kind text, target_key text,
               before jsonb, after jsonb)
        JOIN guard g ON g.id = a.user_id
        RETURNING id`,
      ],
    ],
  }));
}
