import { z } from 'zod';
import type { AdminAuditRow } from '../db/schema.js';
import { adjustPoints, auditLog, reverseAnyEvent, setBan } from '../src/services/admin.js';
import { freeText } from '../src/domain/text.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok } from './dto.js';
import { QUERY_ERRORS, WRITE_ERRORS } from './operation-errors.js';
import { ReversalSchema } from './event-schemas.js';
import { success } from './schemas.js';

/**
 * Running the game: service tokens with the `admin` scope (docs/CATALOG.md, "Admin API");
 * the catalog's definitions are in admin-definitions.ts.
 */

const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
const reason = freeText(1, 500).meta({ description: 'Why: kept in the audit log' });
const userId = z
  .uuid()
  .meta({ description: 'The fan’s user id (as webhooks and exports name it)' });

const AuditEntrySchema = z
  .object({
    id: z.string(),
    actor: z.string().meta({ description: 'The admin client that made the change' }),
    action: z.string().meta({
      description:
        'definition.create|update|retire, fan.adjust, fan.ban, fan.unban, event.reverse, …',
    }),
    targetKind: z.string(),
    targetKey: z.string(),
    before: z.unknown(),
    after: z.unknown(),
    at: time,
  })
  .meta({ id: 'AuditEntry' });

function toAuditEntry(row: AdminAuditRow): z.input<typeof AuditEntrySchema> {
  return { ...row, at: row.at.toISOString() };
}

export const adminRouter = router({
  adminAdjustPoints: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/fans/{userId}/adjustments',
        summary: 'Adjust a fan’s points',
        description:
          'One ledger entry of source `adjustment` moving the balance and the all-time board ' +
          '(season boards count what was earned in them). `id` is your idempotency key for it: ' +
          'sending it again answers `duplicate` and changes nothing. 409 INSUFFICIENT_BALANCE ' +
          'when it would take the balance below 0, 409 POINTS_LIMIT_REACHED past 2,000,000,000.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          userId,
          id: z
            .string()
            .regex(/^[\x21-\x7E]{1,128}$/, 'Must be 1–128 printable ASCII characters, no spaces')
            .meta({ description: 'Your idempotency key for this adjustment' }),
          points: z
            .int()
            .min(-1_000_000)
            .max(1_000_000)
            .refine((n) => n !== 0, 'Must not be 0')
            .meta({ description: 'Points to add (negative: to take away), not 0' }),
          reason,
        })
        .meta({ id: 'AdminAdjustPointsInput' }),
    )
    .output(
      success(
        z
          .object({
            id: z.string(),
            status: z.enum(['adjusted', 'duplicate']),
            points: z.int(),
            balance: z.int().meta({ description: 'The fan’s balance now' }),
          })
          .meta({ id: 'Adjustment' }),
      ),
    )
    .mutation(async ({ ctx, input }) =>
      ok(await adjustPoints(ctx.deps, ctx.principal.clientId, input)),
    ),

  adminSetBan: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/admin/fans/{userId}/ban',
        summary: 'Ban a fan, or lift the ban',
        description:
          'Banned (`banned: true`): the fan’s events are rejected (FAN_BANNED) and their entries ' +
          'leave every board, every rank and the live updates; their points stay. Unbanned: ' +
          'the entries count again where they stand. Idempotent: a fan already so is answered ' +
          'as they are.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          userId,
          banned: z.boolean().meta({ description: 'true bans the fan, false lifts the ban' }),
          reason,
        })
        .meta({ id: 'AdminSetBanInput' }),
    )
    .output(
      success(
        z
          .object({ userId: z.string(), banned: z.boolean(), bannedAt: time.nullable() })
          .meta({ id: 'Ban' }),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const ban = await setBan(ctx.deps, ctx.principal.clientId, {
        userId: input.userId,
        ban: input.banned,
        reason: input.reason,
      });
      return ok({ ...ban, bannedAt: ban.bannedAt?.toISOString() ?? null });
    }),

  adminReverseEvent: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/reversals',
        summary: 'Reverse any client’s event',
        description:
          'What POST /api/events/reversals does for the client that sent the event, for any ' +
          'client (the same compensating entry: reversed once whoever asks).',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          clientId: z.string().min(1).max(256).meta({ description: 'The client that sent it' }),
          id: z
            .string()
            .regex(/^[\x21-\x7E]{1,128}$/)
            .meta({ description: 'The event’s id' }),
          reason,
        })
        .meta({ id: 'AdminReverseEventInput' }),
    )
    .output(success(ReversalSchema))
    .mutation(async ({ ctx, input }) =>
      ok(
        await reverseAnyEvent(ctx.deps, ctx.principal.clientId, {
          ...input,
          issuer: ctx.principal.issuer,
        }),
      ),
    ),

  adminAuditLog: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/audit',
        summary: 'The audit log',
        description:
          'Every change made through the admin API, newest first: who (the admin client), what, ' +
          'when, before and after. `before` (an entry’s id) pages on; `targetKind` with ' +
          '`targetKey` (definition + `quest/daily_reader`, fan + a user id) narrows it to one ' +
          'target; `actor`, `action` and `since`/`until` narrow it further. A deleted fan’s rows name an anonymous id instead.',
        tags: ['admin'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          limit: z
            .number()
            .int()
            .min(1)
            .max(100)
            .default(50)
            .meta({ description: 'Entries per page, 1–100 (default 50)' }),
          before: z
            .string()
            .regex(/^[1-9][0-9]{0,17}$/)
            .meta({ description: 'Entries older than this id' })
            .optional(),
          targetKind: z
            .enum(['definition', 'fan', 'webhook_endpoint'])
            .meta({ description: 'Only changes of this kind of target (with targetKey)' })
            .optional(),
          targetKey: z
            .string()
            .max(200)
            .meta({
              description: 'Only changes of this target: `quest/daily_reader`, a user id, …',
            })
            .optional(),
          actor: z
            .string()
            .min(1)
            .max(256)
            .meta({ description: 'Only changes made by this admin client' })
            .optional(),
          action: z
            .string()
            .regex(/^[a-z_]{1,40}(\.[a-z_]{1,40})?$/, 'An action (fan.ban) or a family (fan)')
            .meta({ description: 'Only this action (`fan.ban`), or a family of them (`fan`)' })
            .optional(),
          since: time.meta({ description: 'Only changes made at or after this time' }).optional(),
          until: time.meta({ description: 'Only changes made before this time' }).optional(),
        })
        .refine((input) => (input.targetKind === undefined) === (input.targetKey === undefined), {
          path: ['targetKey'],
          message: 'targetKind and targetKey go together',
        })
        .refine(
          (input) =>
            !input.since || !input.until || Date.parse(input.since) < Date.parse(input.until),
          {
            path: ['until'],
            message: 'until must be later than since',
          },
        )
        .meta({ id: 'AdminAuditLogInput' }),
    )
    .output(
      success(
        z.object({
          entries: z.array(AuditEntrySchema),
          nextCursor: z.string().nullable().meta({ description: 'Pass as `before` for more' }),
        }),
      ),
    )
    .query(async ({ ctx, input }) => {
      const rows = await auditLog(ctx.deps, {
        limit: input.limit + 1,
        beforeId: input.before,
        target:
          input.targetKind && input.targetKey
            ? { kind: input.targetKind, key: input.targetKey }
            : undefined,
        actor: input.actor,
        action: input.action,
        since: input.since === undefined ? undefined : new Date(input.since),
        until: input.until === undefined ? undefined : new Date(input.until),
      });
      const page = rows.slice(0, input.limit);
      return ok({
        entries: page.map(toAuditEntry),
        nextCursor: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null,
      });
    }),
});
