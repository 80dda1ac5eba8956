import { z } from 'zod';
import {
  DEFAULT_SECRET_OVERLAP_SECONDS,
  MAX_ACTIVE_ENDPOINTS,
  MAX_SECRET_OVERLAP_SECONDS,
  WEBHOOK_EVENT_TYPES,
  webhookUrlProblem,
} from '../src/domain/webhook-endpoints.js';
import {
  createWebhookEndpoint,
  listWebhookEndpoints,
  retireWebhookEndpoint,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  type WebhookEndpoint,
} from '../src/services/webhook-endpoints.js';
import { freeText } from '../src/domain/text.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok } from './dto.js';
import { LOOKUP_ERRORS, READ_ERRORS, WRITE_ERRORS } from './operation-errors.js';
import { success } from './schemas.js';

/**
 * Webhook endpoints, for service tokens with the `admin` scope (docs/LIVE.md,
 * "Webhooks"): several, each with its event-type filter and its own secret.
 */

const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });

const url = z
  .string()
  .trim()
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'Where events are POSTed: an absolute http or https URL, no credentials, no fragment, ' +
      'at most 2048 characters',
    examples: ['https://hooks.example.com/fan-events'],
  });

const eventTypes = z
  .array(z.enum(WEBHOOK_EVENT_TYPES, { error: () => `One of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
  .max(WEBHOOK_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'Each event type at most once')
  .meta({ description: 'The event types it receives; empty: every type' });

const description = freeText(0, 200)
  .nullable()
  .meta({ description: 'What it is for, for the people running it (at most 200 characters)' });

const id = z.uuid().meta({ description: 'The endpoint’s id' });

const secret = z.string().meta({
  description:
    'The signing secret (`whsec_` + base64), shown this once: keep it where the receiver ' +
    'verifies signatures',
  examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
});

export const WebhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    description: z.string().nullable(),
    eventTypes: z.array(z.enum(WEBHOOK_EVENT_TYPES)).meta({
      description: 'The event types it receives; empty: every type',
    }),
    enabled: z.boolean().meta({
      description: 'false: paused: events queue for it and go out when it is enabled again',
    }),
    source: z.enum(['admin', 'config']).meta({
      description:
        '`config`: the endpoint of WEBHOOK_URL and WEBHOOK_SECRET, changed there (409 here); ' +
        '`admin`: made with this API',
    }),
    previousSecretExpiresAt: time.nullable().meta({
      description:
        'During a rotation’s overlap: until when deliveries are also signed with the previous ' +
        'secret; null otherwise',
    }),
    createdAt: time,
    updatedAt: time,
    retiredAt: time.nullable().meta({ description: 'When it was retired; null while active' }),
  })
  .meta({ id: 'WebhookEndpoint' });

const WebhookEndpointListSchema = z
  .object({ endpoints: z.array(WebhookEndpointSchema) })
  .meta({ id: 'WebhookEndpointList' });

const WebhookEndpointSecretSchema = z
  .object({ endpoint: WebhookEndpointSchema, secret })
  .meta({ id: 'WebhookEndpointWithSecret' });

function toEndpoint(endpoint: WebhookEndpoint): z.infer<typeof WebhookEndpointSchema> {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes as z.infer<typeof WebhookEndpointSchema>['eventTypes'],
    enabled: endpoint.enabled,
    source: endpoint.source,
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: endpoint.createdAt.toISOString(),
    updatedAt: endpoint.updatedAt.toISOString(),
    retiredAt: endpoint.retiredAt?.toISOString() ?? null,
  };
}

const PATH = '/api/admin/webhook-endpoints';

export const adminWebhooksRouter = router({
  adminListWebhookEndpoints: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: PATH,
        summary: 'List the webhook endpoints',
        description:
          'Every endpoint, retired ones too (with `retiredAt`), oldest first. Secrets are never ' +
          'shown.',
        tags: ['admin'],
        errorResponses: READ_ERRORS,
        protect: true,
      },
    })
    .output(success(WebhookEndpointListSchema))
    .query(async ({ ctx }) => {
      const endpoints = await listWebhookEndpoints(ctx.deps);
      return ok({ endpoints: endpoints.map(toEndpoint) });
    }),

  adminCreateWebhookEndpoint: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: PATH,
        summary: 'Create a webhook endpoint',
        description:
          'It receives the events of its types committed from now on, each signed per Standard ' +
          'Webhooks with its own secret, which this answer shows once. At most ' +
          `${MAX_ACTIVE_ENDPOINTS} endpoints that are not retired (409 WEBHOOK_ENDPOINT_CONFLICT).`,
        tags: ['admin'],
        errorResponses: WRITE_ERRORS,
        protect: true,
      },
      created: 'The endpoint and its secret',
    })
    .input(
      z
        .strictObject({
          url,
          eventTypes: eventTypes.default([]),
          description: description.default(null),
        })
        .meta({ id: 'AdminCreateWebhookEndpointInput' }),
    )
    .output(success(WebhookEndpointSecretSchema))
    .mutation(async ({ ctx, input }) => {
      const created = await createWebhookEndpoint(ctx.deps, ctx.principal.clientId, input);
      ctx.response.created = true;
      return ok({ endpoint: toEndpoint(created.endpoint), secret: created.secret });
    }),

  adminUpdateWebhookEndpoint: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'PATCH',
        path: `${PATH}/{id}`,
        summary: 'Change a webhook endpoint',
        description:
          'Its URL, event types, description, or whether it is enabled; omitted fields are ' +
          'unchanged. A disabled endpoint is paused: its events keep queueing and go out when ' +
          'it is enabled again (those older than WEBHOOK_RETRY_FOR_SECONDS get one attempt). ' +
          '409 WEBHOOK_ENDPOINT_CONFLICT for a retired endpoint or the one of WEBHOOK_URL.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          id,
          url: url.optional(),
          eventTypes: eventTypes.optional(),
          description: description.optional(),
          enabled: z.boolean().optional().meta({ description: 'false pauses it; true resumes it' }),
        })
        .refine((input) => Object.keys(input).length > 1, {
          message: 'No fields: send at least one of url, eventTypes, description, enabled',
          when: (payload) => payload.issues.length === 0,
        })
        .meta({ id: 'AdminUpdateWebhookEndpointInput' }),
    )
    .output(success(WebhookEndpointSchema))
    .mutation(async ({ ctx, input }) => {
      const { id: endpointId, ...changes } = input;
      const endpoint = await updateWebhookEndpoint(
        ctx.deps,
        ctx.principal.clientId,
        endpointId,
        changes,
      );
      return ok(toEndpoint(endpoint));
    }),

  adminRotateWebhookEndpointSecret: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: `${PATH}/{id}/rotate-secret`,
        summary: 'Rotate a webhook endpoint’s secret',
        description:
          'A new secret, shown once. For `overlapSeconds` (default 86400, at most 604800; 0: ' +
          'none) every delivery carries two signatures in `webhook-signature`, one per secret, ' +
          'so the receiver verifies with either while it switches; then only the new one. A ' +
          'second rotation during the overlap drops the oldest secret at once.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          id,
          overlapSeconds: z
            .int()
            .min(0)
            .max(MAX_SECRET_OVERLAP_SECONDS)
            .default(DEFAULT_SECRET_OVERLAP_SECONDS)
            .meta({ description: 'How long the previous secret still signs deliveries' }),
        })
        .meta({ id: 'AdminRotateWebhookEndpointSecretInput' }),
    )
    .output(success(WebhookEndpointSecretSchema))
    .mutation(async ({ ctx, input }) => {
      const rotated = await rotateWebhookEndpointSecret(
        ctx.deps,
        ctx.principal.clientId,
        input.id,
        input.overlapSeconds,
      );
      return ok({ endpoint: toEndpoint(rotated.endpoint), secret: rotated.secret });
    }),

  adminRetireWebhookEndpoint: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'DELETE',
        path: `${PATH}/{id}`,
        summary: 'Retire a webhook endpoint',
        description:
          'Retires it: nothing more is sent to it, and what was queued for it is dropped; it ' +
          'stays in the list (with `retiredAt`) and in the logs. Again: the same answer. The endpoint of ' +
          'WEBHOOK_URL can be retired once it is unset (an instance starting with it brings ' +
          'it back).',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(z.strictObject({ id }).meta({ id: 'AdminRetireWebhookEndpointInput' }))
    .output(success(WebhookEndpointSchema))
    .mutation(async ({ ctx, input }) => {
      const endpoint = await retireWebhookEndpoint(ctx.deps, ctx.principal.clientId, input.id);
      return ok(toEndpoint(endpoint));
    }),
});
