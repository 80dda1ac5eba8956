import type { Kysely } from 'kysely';
import type { AdminAuditRow, Database } from '../schema.js';

/** One change an admin made, as the audit log keeps it. */
export interface AuditEntry {
  /** The admin client's id. */
  actor: string;
  action: string;
  targetKind: string;
  targetKey: string;
  before?: unknown;
  after?: unknown;
}

/** The row `entry` is stored as (before and after as JSON text, or null): here and in a user's write. */
export function auditValues(entry: AuditEntry) {
  return {
    actor: entry.actor,
    action: entry.action,
    targetKind: entry.targetKind,
    targetKey: entry.targetKey,
    before: entry.before === undefined ? null : JSON.stringify(entry.before),
    after: entry.after === undefined ? null : JSON.stringify(entry.after),
  };
}

/** Appends `entry` to the audit log, in the caller's transaction (one clock with the change). */
export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db.insertInto('adminAudit').values(auditValues(entry)).execute();
}

/** What narrows a page of the audit log; every given part must hold. */
export interface AuditQuery {
  limit: number;
  /** Rows older than this id. */
  beforeId?: string | undefined;
  target?: { kind: string; key: string } | undefined;
  /** The admin client that made the change. */
  actor?: string | undefined;
  /** One action (`fan.ban`), or a family of them (`fan`: every `fan.*`). */
  action?: string | undefined;
  /** Made at or after this instant. */
  since?: Date | undefined;
  /** Made before this instant. */
  until?: Date | undefined;
}

/** The audit log, newest first: `limit` rows of those `query` narrows it to. */
export function auditPage(db: Kysely<Database>, query: AuditQuery): Promise<AdminAuditRow[]> {
  let select = db.selectFrom('adminAudit').selectAll();
  if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
  if (query.target) {
    select = select
      .where('targetKind', '=', query.target.kind)
      .where('targetKey', '=', query.target.key);
  }
  if (query.actor !== undefined) select = select.where('actor', '=', query.actor);
  if (query.action !== undefined) {
    select = query.action.includes('.')
      ? select.where('action', '=', query.action)
      : // `_` is a LIKE wildcard: `webhook_endpoint` must match itself only.
        select.where('action', 'like', `${query.action.replaceAll('_', '\\_')}.%`);
  }
  if (query.since !== undefined) select = select.where('at', '>=', query.since);
  if (query.until !== undefined) select = select.where('at', '<', query.until);
  return select.orderBy('id', 'desc').limit(query.limit).execute();
}

/**
 * The rows about a fan whose account is being deleted name the tombstone
 * that keeps the account's ledger instead (the one UPDATE the log allows).
 */
export async function pseudonymiseAudit(
  db: Kysely<Database>,
  userId: string,
  tombstoneId: string,
): Promise<void> {
  await db
    .updateTable('adminAudit')
    .set({ targetKey: tombstoneId })
    .where('targetKind', '=', 'fan')
    .where('targetKey', '=', userId)
    .execute();
}
