import { auditPage, recordAudit, type AuditQuery } from '../../db/queries/audit.js';
import {
  appendDefinition,
  definitionVersions,
  latestDefinitions,
  lockCatalog,
  type DefinitionRow,
} from '../../db/queries/catalog.js';
import { findLedgerEntry } from '../../db/queries/points.js';
import { unchangedPlan, type UserWritePlan } from '../../db/queries/user-write/index.js';
import type { AdminAuditRow } from '../../db/schema.js';
import { AppError, schemaIssues, validationError } from '../app-error.js';
import { isAccount } from '../domain/accounts.js';
import { ALL_TIME_BOARD } from '../domain/boards.js';
import {
  DefinitionSchema,
  definitionId,
  patchedDefinition,
  referenceProblems,
  type Definition,
  type DefinitionKind,
  type DefinitionPatch,
} from '../domain/catalog.js';
import { encodeDefinitionCursor } from '../domain/cursor.js';
import { pointsAwarded } from '../domain/events.js';
import { pointsLimitError, pointsMove, withinPointsLimit } from '../domain/ledger.js';
import { placeMoves } from '../domain/placement.js';
import type { ActivityDeps } from './activity.js';
import { writeFan } from './fan-writes.js';
import { toPage, type Page } from './page.js';
import { reverseEvent, type ReversalResult } from './reversal.js';

/**
 * Running the game (docs/CATALOG.md, "Admin API"): the catalog's definitions,
 * a fan's points and ban, any client's events, and the audit log that keeps
 * every change with who made it. The caller is a service token with the
 * `admin` scope; `actor` is its client id.
 */

export interface AdminDeps extends ActivityDeps {
  catalog: ActivityDeps['catalog'] & { invalidate(): void };
}

/** One stored version of a definition, as the admin API shows it. */
export interface DefinitionVersion {
  kind: DefinitionKind;
  key: string;
  version: number;
  retired: boolean;
  definition: Definition;
  changedBy: string;
  changedAt: Date;
}

function versionOf(row: DefinitionRow): DefinitionVersion {
  return {
    kind: row.kind,
    key: row.key,
    version: row.version,
    retired: row.retired,
    // Stored through DefinitionSchema; its defaults were filled in then.
    definition: row.definition as Definition,
    changedBy: row.changedBy,
    changedAt: row.changedAt,
  };
}

/** The newest version of every definition, retired ones only when asked for. */
export async function listDefinitions(
  deps: Pick<AdminDeps, 'db'>,
  filter: { kind?: DefinitionKind | undefined; includeRetired: boolean },
): Promise<DefinitionVersion[]> {
  const { rows } = await latestDefinitions(deps.db);
  return rows
    .filter(
      (row) =>
        (filter.kind === undefined || row.kind === filter.kind) &&
        (filter.includeRetired || !row.retired),
    )
    .map(versionOf);
}

/**
 * One page of a definition's versions, newest first: `limit` of them, older
 * than `beforeVersion` (a cursor's) when given. 404 when it never existed.
 */
export async function definitionHistory(
  deps: Pick<AdminDeps, 'db'>,
  kind: DefinitionKind,
  key: string,
  page: { limit: number; beforeVersion?: number | undefined },
): Promise<Page<DefinitionVersion>> {
  const rows = await definitionVersions(deps.db, kind, key, { ...page, limit: page.limit + 1 });
  if (rows.length === 0) {
    // Past the oldest version, or never defined: only the latter is a 404.
    const [newest] = await definitionVersions(deps.db, kind, key, { limit: 1 });
    if (!newest) throw notFound(kind, key);
  }
  return toPage(rows.map(versionOf), page.limit, (last) => encodeDefinitionCursor(last.version));
}

/**
 * A partial change (PATCH): the fields sent in place of those of version
 * `expectedVersion`, the rest kept; the result is checked whole (a 400
 * naming `definition.<field>`) and stored as `changeDefinition` stores an
 * update, which checks the version again under the catalog's lock.
 */
export async function patchDefinition(
  deps: AdminDeps,
  actor: string,
  change: { kind: DefinitionKind; key: string; expectedVersion: number; patch: DefinitionPatch },
): Promise<DefinitionVersion> {
  const [latest] = await definitionVersions(deps.db, change.kind, change.key, { limit: 1 });
  if (!latest) throw notFound(change.kind, change.key);
  if (latest.version !== change.expectedVersion) throw staleVersion(latest, change.expectedVersion);
  const patched = patchedDefinition(versionOf(latest).definition, change.patch);
  if (!patched.success) {
    throw validationError(
      (schemaIssues(patched.error) ?? []).map((issue) => ({
        ...issue,
        path: issue.path ? `definition.${issue.path}` : 'definition',
      })),
    );
  }
  return changeDefinition(deps, actor, {
    action: 'update',
    expectedVersion: change.expectedVersion,
    definition: patched.data,
  });
}

function staleVersion(latest: DefinitionRow, expectedVersion: number): AppError {
  return new AppError(
    'DEFINITION_CONFLICT',
    `${latest.kind} "${latest.key}" is at version ${latest.version}, not ${expectedVersion}: ` +
      'read it again and resend',
  );
}

export type DefinitionChange =
  | { action: 'create'; definition: Definition }
  | { action: 'update'; expectedVersion: number; definition: Definition }
  | { action: 'retire'; expectedVersion: number; kind: DefinitionKind; key: string };

/**
 * Appends a version of a definition (docs/CATALOG.md, "How a change rolls
 * out"): created at version 1, updated or retired at the version after
 * `expectedVersion` (409 when another change came first), refused when the
 * catalog after it would name anything inactive. One change at a time
 * (the catalog's lock), with its audit row, in one transaction; this
 * instance reloads at once, the others within CATALOG_REFRESH_MS.
 */
export async function changeDefinition(
  deps: AdminDeps,
  actor: string,
  change: DefinitionChange,
): Promise<DefinitionVersion> {
  const kind = change.action === 'retire' ? change.kind : change.definition.kind;
  const key = change.action === 'retire' ? change.key : change.definition.key;
  const stored = await deps.db.transaction().execute(async (trx) => {
    await lockCatalog(trx);
    const [latest] = await definitionVersions(trx, kind, key, { limit: 1 });
    if (change.action === 'create') {
      if (latest) {
        throw new AppError(
          'DEFINITION_CONFLICT',
          `${kind} "${key}" exists (version ${latest.version}${latest.retired ? ', retired' : ''}): ` +
            'update it instead (a retired one is brought back by an update)',
        );
      }
    } else {
      if (!latest) throw notFound(kind, key);
      if (latest.version !== change.expectedVersion) {
        throw staleVersion(latest, change.expectedVersion);
      }
      if (change.action === 'retire' && latest.retired) {
        throw new AppError('DEFINITION_CONFLICT', `${kind} "${key}" is already retired`);
      }
    }
    const body: Definition =
      change.action === 'retire' ? (latest!.definition as Definition) : change.definition;
    const retired = change.action === 'retire';

    // The catalog as it would be: every other active definition, and this one unless retired.
    const { rows } = await latestDefinitions(trx);
    const active = rows
      .filter((row) => !row.retired && definitionId(row.kind, row.key) !== definitionId(kind, key))
      .flatMap((row) => {
        const parsed = DefinitionSchema.safeParse(row.definition);
        return parsed.success ? [parsed.data] : [];
      });
    if (!retired) active.push(body);
    const problems = referenceProblems(active);
    if (problems.length > 0) {
      throw new AppError('DEFINITION_CONFLICT', `${problems.join('; ')}`);
    }

    const row = await appendDefinition(trx, {
      kind,
      key,
      version: (latest?.version ?? 0) + 1,
      definition: body,
      retired,
      changedBy: actor,
    });
    await recordAudit(trx, {
      actor,
      action: `definition.${change.action}`,
      targetKind: 'definition',
      targetKey: definitionId(kind, key),
      before: latest ? versionOf(latest) : undefined,
      after: versionOf(row),
    });
    return row;
  });
  deps.catalog.invalidate();
  return versionOf(stored);
}

function notFound(kind: string, key: string): AppError {
  return new AppError('NOT_FOUND', `No ${kind} "${key}" was ever defined`);
}

/** What an adjustment did. */
export interface AdjustmentResult {
  id: string;
  status: 'adjusted' | 'duplicate';
  points: number;
  balance: number;
}

/**
 * Adjusts a fan's balance by `points` with a reason (docs/CATALOG.md,
 * "Adjustments"): one ledger entry of source `adjustment`, keyed by the
 * admin's id for it (sending the same id again changes nothing), moving the
 * balance and the all-time board (seasons count what was earned in them).
 * Refused when it would take the balance below 0.
 */
export async function adjustPoints(
  deps: AdminDeps,
  actor: string,
  input: { userId: string; id: string; points: number; reason: string },
): Promise<AdjustmentResult> {
  const key = `adjustment:${input.id}`;
  return writeFan<AdjustmentResult>(
    deps,
    {
      userId: input.userId,
      scope: { boards: [ALL_TIME_BOARD], periods: [] },
      gone: () => {
        throw fanNotFound(input.userId);
      },
      plan: async (state) => {
        if (!isAccount(state.user)) throw fanNotFound(input.userId);
        const earlier = await findLedgerEntry(deps.db, input.userId, key);
        if (earlier) {
          const answer = { id: input.id, points: earlier.delta, balance: state.points };
          return { answer: { ...answer, status: 'duplicate' } };
        }
        if (state.points + input.points < 0) {
          throw new AppError(
            'INSUFFICIENT_BALANCE',
            `The fan's balance is ${state.points}: an adjustment of ${input.points} would take it below 0`,
          );
        }
        const source = { kind: 'adjustment' as const, by: actor, note: input.reason };
        const onBoards = state.user.onboardedAt !== null;
        const moves = [
          pointsMove({ key, delta: input.points, source }, onBoards ? [ALL_TIME_BOARD] : []),
        ];
        const placed = placeMoves(state, onBoards, moves);
        const credit = placed.credits[0]!;
        if (!withinPointsLimit([credit.balanceAfter, ...placed.boards.map((b) => b.points)])) {
          throw pointsLimitError(`An adjustment of ${input.points}`);
        }
        const event = pointsAwarded({ ...credit, source });
        const write: UserWritePlan = {
          ...unchangedPlan(state, deps.clock()),
          boards: placed.boards,
          credits: placed.credits,
          events: [{ type: event.type, payload: event.data }],
          announceRanks: onBoards,
          audit: {
            actor,
            action: 'fan.adjust',
            targetKind: 'fan',
            targetKey: state.user.id,
            before: { balance: state.points },
            after: {
              balance: credit.balanceAfter,
              points: input.points,
              id: input.id,
              reason: input.reason,
            },
          },
        };
        return {
          write,
          written: () => ({
            id: input.id,
            status: 'adjusted',
            points: input.points,
            balance: credit.balanceAfter,
          }),
        };
      },
    },
    { writer: 'admin' },
  );
}

/** A fan's ban, as the admin API shows it. */
export interface BanResult {
  userId: string;
  banned: boolean;
  bannedAt: Date | null;
}

/**
 * Bans a fan or lifts the ban (docs/CATALOG.md, "Bans"): banned, the fan's
 * events are refused (FAN_BANNED) and their entries leave every board and
 * every count; unbanned, the entries count again where they stand. In one
 * guarded write with its audit row; a fan already in the state asked for is
 * answered as they are, with nothing written.
 */
export async function setBan(
  deps: AdminDeps,
  actor: string,
  input: { userId: string; ban: boolean; reason: string },
): Promise<BanResult> {
  return writeFan<BanResult>(
    deps,
    {
      userId: input.userId,
      scope: { boards: [], periods: [] },
      gone: () => {
        throw fanNotFound(input.userId);
      },
      plan: (state) => {
        if (!isAccount(state.user)) throw fanNotFound(input.userId);
        const bannedAt = state.user.bannedAt;
        if ((bannedAt !== null) === input.ban) {
          return { answer: { userId: state.user.id, banned: input.ban, bannedAt } };
        }
        const write: UserWritePlan = {
          ...unchangedPlan(state, deps.clock()),
          ban: input.ban ? 'ban' : 'unban',
          audit: {
            actor,
            action: input.ban ? 'fan.ban' : 'fan.unban',
            targetKind: 'fan',
            targetKey: state.user.id,
            before: { bannedAt },
            after: { banned: input.ban, reason: input.reason },
          },
        };
        return {
          write,
          written: (result) => ({
            userId: state.user.id,
            banned: input.ban,
            bannedAt: result.user.bannedAt,
          }),
        };
      },
    },
    { writer: 'admin' },
  );
}

/**
 * Reverses any client's event (docs/ACTIVITY.md, "Reversal"), as that client
 * could: the same compensating entry, so a reversal by either is made once.
 */
export function reverseAnyEvent(
  deps: AdminDeps,
  actor: string,
  input: { issuer: string; clientId: string; id: string; reason: string },
): Promise<ReversalResult> {
  return reverseEvent(deps, { issuer: input.issuer, clientId: input.clientId }, input.id, {
    actor,
    reason: input.reason,
  });
}

/** The audit log, newest first. */
export function auditLog(deps: Pick<AdminDeps, 'db'>, query: AuditQuery): Promise<AdminAuditRow[]> {
  return auditPage(deps.db, query);
}

function fanNotFound(userId: string): AppError {
  return new AppError('NOT_FOUND', `No fan has the id "${userId}"`);
}
