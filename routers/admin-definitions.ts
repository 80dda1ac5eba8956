import { z } from 'zod';
import {
  DefinitionKeySchema,
  DefinitionPatchSchema,
  DefinitionSchema,
} from '../src/domain/catalog.js';
import { decodeDefinitionCursor } from '../src/domain/cursor.js';
import {
  changeDefinition,
  definitionHistory,
  listDefinitions,
  patchDefinition,
  type DefinitionVersion,
} from '../src/services/admin.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok } from './dto.js';
import { LOOKUP_ERRORS, QUERY_ERRORS, WRITE_ERRORS } from './operation-errors.js';
import { cursorParam, nextCursor, pageLimit, success } from './schemas.js';

/** The catalog's definitions: service tokens with the `admin` scope (docs/CATALOG.md, "Admin API"). */

const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
const kind = z
  .enum(['event_type', 'quest', 'streak'])
  .meta({ description: 'event_type, quest or streak' });
const version = z.int().min(1).max(1_000_000);

const Definition = DefinitionSchema.meta({
  id: 'Definition',
  description:
    'An event type, quest or streak (docs/CATALOG.md). `kind` and `key` identify it for good: ' +
    'award keys carry them, so a key never changes meaning.',
});

const DefinitionVersionSchema = z
  .object({
    kind,
    key: z.string(),
    version: z.int(),
    retired: z.boolean(),
    definition: DefinitionSchema,
    changedBy: z.string().meta({ description: 'The admin client that made this version' }),
    changedAt: time,
  })
  .meta({ id: 'DefinitionVersion' });

const definitionPath = { kind, key: DefinitionKeySchema };

function toVersion(row: DefinitionVersion): z.input<typeof DefinitionVersionSchema> {
  return { ...row, changedAt: row.changedAt.toISOString() };
}

export const adminDefinitionsRouter = router({
  adminListDefinitions: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/definitions',
        summary: 'List the catalog’s definitions',
        description:
          'The newest version of every event type, quest and streak; retired ones only with ' +
          '`includeRetired=true`.',
        tags: ['admin'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          kind: kind.optional(),
          includeRetired: z
            .enum(['true', 'false'])
            .default('false')
            .transform((value) => value === 'true')
            .meta({ description: 'Also list retired definitions (default false)' }),
        })
        .meta({ id: 'AdminListDefinitionsInput' }),
    )
    .output(success(z.object({ definitions: z.array(DefinitionVersionSchema) })))
    .query(async ({ ctx, input }) => {
      const rows = await listDefinitions(ctx.deps, input);
      return ok({ definitions: rows.map(toVersion) });
    }),

  adminDefinitionHistory: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/definitions/{kind}/{key}',
        summary: 'One definition with its versions, a page at a time',
        description:
          'Its versions, newest first: what was in force when, and who changed it, `limit` at ' +
          'a time; `nextCursor` passed back as `cursor` reads on. A retired definition stays ' +
          'readable here.',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          ...definitionPath,
          limit: pageLimit,
          cursor: cursorParam(decodeDefinitionCursor).optional(),
        })
        .meta({ id: 'AdminDefinitionHistoryInput' }),
    )
    .output(
      success(
        z.object({
          versions: z.array(DefinitionVersionSchema).meta({ description: 'Newest first' }),
          nextCursor,
        }),
      ),
    )
    .query(async ({ ctx, input }) => {
      const page = await definitionHistory(ctx.deps, input.kind, input.key, {
        limit: input.limit,
        beforeVersion: input.cursor,
      });
      return ok({ versions: page.entries.map(toVersion), nextCursor: page.nextCursor });
    }),

  adminCreateDefinition: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/definitions',
        summary: 'Create a definition',
        description:
          'Version 1 of a new event type, quest or streak, in force on every instance within ' +
          'CATALOG_REFRESH_MS. 409 DEFINITION_CONFLICT when the key exists (also retired: ' +
          'update it instead) or when it names an event type or quest that is not active.',
        tags: ['admin'],
        errorResponses: WRITE_ERRORS,
        protect: true,
      },
      created: 'The definition, at version 1',
      alwaysCreated: true,
    })
    .input(z.strictObject({ definition: Definition }).meta({ id: 'AdminCreateDefinitionInput' }))
    .output(success(DefinitionVersionSchema))
    .mutation(async ({ ctx, input }) => {
      const row = await changeDefinition(ctx.deps, ctx.principal.clientId, {
        action: 'create',
        definition: input.definition,
      });
      ctx.response.created = true;
      return ok(toVersion(row));
    }),

  adminUpdateDefinition: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'PUT',
        path: '/api/admin/definitions/{kind}/{key}',
        summary: 'Change a definition',
        description:
          'The next version, the whole definition as sent (a field left out takes its default; ' +
          'PATCH changes some fields), if `expectedVersion` is the newest (else 409 ' +
          'DEFINITION_CONFLICT: read it again). A retired definition comes back. Nothing awarded is taken back or ' +
          'awarded twice: a quest’s tiers already reached keep their award; new targets count ' +
          'from the progress stored.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({ ...definitionPath, expectedVersion: version, definition: Definition })
        .refine((input) => input.definition.kind === input.kind, {
          path: ['definition', 'kind'],
          message: 'Must be the kind in the path',
        })
        .refine((input) => input.definition.key === input.key, {
          path: ['definition', 'key'],
          message: 'Must be the key in the path: a key never changes',
        })
        .meta({ id: 'AdminUpdateDefinitionInput' }),
    )
    .output(success(DefinitionVersionSchema))
    .mutation(async ({ ctx, input }) => {
      const row = await changeDefinition(ctx.deps, ctx.principal.clientId, {
        action: 'update',
        expectedVersion: input.expectedVersion,
        definition: input.definition,
      });
      return ok(toVersion(row));
    }),

  adminPatchDefinition: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/api/admin/definitions/{kind}/{key}',
        summary: 'Change some fields of a definition',
        description:
          'The next version, with the fields sent in place of those of `expectedVersion` and ' +
          'every other field as it was (PUT replaces the whole definition). The result is ' +
          'checked as a whole definition: a problem is a 400 naming `definition.<field>`. ' +
          '409 DEFINITION_CONFLICT when `expectedVersion` is not the newest. A retired ' +
          'definition comes back.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          ...definitionPath,
          expectedVersion: version,
          definition: DefinitionPatchSchema.meta({
            id: 'DefinitionPatch',
            description:
              'Fields of the definition’s kind to change (not `kind` or `key`), at least one.',
          }),
        })
        .meta({ id: 'AdminPatchDefinitionInput' }),
    )
    .output(success(DefinitionVersionSchema))
    .mutation(async ({ ctx, input }) => {
      const row = await patchDefinition(ctx.deps, ctx.principal.clientId, {
        kind: input.kind,
        key: input.key,
        expectedVersion: input.expectedVersion,
        patch: input.definition,
      });
      return ok(toVersion(row));
    }),

  adminRetireDefinition: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/admin/definitions/{kind}/{key}/retire',
        summary: 'Retire a definition',
        description:
          'A last version, retired: it stops counting and leaves fans’ quest lists; what it ' +
          'awarded stays, and its history stays readable. 409 when another active definition ' +
          'still names it.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({ ...definitionPath, expectedVersion: version })
        .meta({ id: 'AdminRetireDefinitionInput' }),
    )
    .output(success(DefinitionVersionSchema))
    .mutation(async ({ ctx, input }) => {
      const row = await changeDefinition(ctx.deps, ctx.principal.clientId, {
        action: 'retire',
        ...input,
      });
      return ok(toVersion(row));
    }),
});
