import { z } from 'zod';
import type { WebhookDeliveryRow } from '../db/schema.js';
import { deliveryLog, redeliver, sendTestEvent } from '../src/services/webhook-deliveries.js';
import { DELIVERY_TIMEOUT_MS } from '../src/live/webhooks.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok } from './dto.js';
import { LOOKUP_ERRORS, WRITE_ERRORS } from './operation-errors.js';
import { success } from './schemas.js';

/**
 * An endpoint's delivery log, redelivery and test events, for service tokens
 * with the `admin` scope (docs/LIVE.md, "Delivery log").
 */

const PATH = '/api/admin/webhook-endpoints';
const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
const id = z.uuid().meta({ description: 'The endpoint’s id' });
const eventId = z
  .string()
  .regex(/^[1-9][0-9]{0,17}$/)
  .meta({ description: 'The event’s id (its `webhook-id`)' });
const OUTCOMES = ['delivered', 'failed', 'gave_up'] as const;

export const WebhookDeliverySchema = z
  .object({
    id: z.string().meta({ description: 'The log entry’s id' }),
    eventId: z.string().meta({ description: 'The event’s id: the `webhook-id` it was sent with' }),
    eventType: z.string().nullable().meta({
      description: 'points_awarded, …, webhook_test; null on entries older than this field',
    }),
    attempt: z.int().min(1).meta({ description: 'Which attempt at this event this was, from 1' }),
    outcome: z.enum(OUTCOMES).meta({
      description:
        'delivered: a 2xx; failed: retried later; gave_up: not retried (past the retry window, ' +
        'or a test event)',
    }),
    statusCode: z.int().nullable().meta({ description: 'The receiver’s status; null if none' }),
    error: z.string().nullable().meta({
      description: 'Why it failed: `HTTP 500`, `ECONNREFUSED`, `timeout`, …; null when delivered',
    }),
    durationMs: z.int().min(0),
    at: time,
  })
  .meta({ id: 'WebhookDelivery' });

function toDelivery(row: WebhookDeliveryRow): z.input<typeof WebhookDeliverySchema> {
  return {
    id: String(row.id),
    eventId: String(row.eventId),
    eventType: row.eventType,
    attempt: row.attempt,
    outcome: row.outcome,
    statusCode: row.statusCode,
    error: row.error,
    durationMs: row.durationMs,
    at: row.createdAt.toISOString(),
  };
}

export const adminDeliveriesRouter = router({
  adminWebhookDeliveries: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: `${PATH}/{id}/deliveries`,
        summary: 'An endpoint’s delivery log',
        description:
          'Every attempt at every event sent to the endpoint, newest first: status, error, ' +
          'duration, attempt number. `outcome` or `eventId` narrows it; `before` pages on. ' +
          'Kept for LIVE_RETENTION_DAYS, like the events.',
        tags: ['admin'],
        errorResponses: LOOKUP_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          id,
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
            .meta({ description: 'Entries older than this one: the previous page’s nextCursor' })
            .optional(),
          outcome: z.enum(OUTCOMES).meta({ description: 'Only attempts with it' }).optional(),
          eventId: eventId.meta({ description: 'Only attempts at this event' }).optional(),
        })
        .meta({ id: 'AdminWebhookDeliveriesInput' }),
    )
    .output(
      success(
        z
          .object({
            entries: z.array(WebhookDeliverySchema),
            nextCursor: z.string().nullable().meta({ description: 'Pass as `before` for more' }),
          })
          .meta({ id: 'WebhookDeliveryPage' }),
      ),
    )
    .query(async ({ ctx, input }) => {
      const page = await deliveryLog(ctx.deps, input.id, {
        limit: input.limit,
        beforeId: input.before,
        outcome: input.outcome,
        eventId: input.eventId,
      });
      return ok({ entries: page.entries.map(toDelivery), nextCursor: page.nextCursor });
    }),

  adminRedeliverWebhook: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: `${PATH}/{id}/redeliveries`,
        summary: 'Send an event to an endpoint again',
        description:
          'An event the endpoint was sent before (delivered, failed or given up) is queued ' +
          'again, due now, as the next attempt: signed as every delivery, after the fan’s ' +
          'earlier events still queued for it. Still queued: answered `already_queued`, ' +
          'nothing changes. 404 if the endpoint was never sent it; 409 for a retired endpoint ' +
          'or an event no longer kept. Past WEBHOOK_RETRY_FOR_SECONDS a failed redelivery is ' +
          'given up at once.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(z.strictObject({ id, eventId }).meta({ id: 'AdminRedeliverWebhookInput' }))
    .output(
      success(
        z
          .object({
            eventId: z.string(),
            status: z.enum(['queued', 'already_queued']),
            attempt: z.int().min(1).meta({ description: 'The attempt it will be' }),
            nextAt: time.meta({ description: 'When it is due' }),
          })
          .meta({ id: 'Redelivery' }),
      ),
    )
    .mutation(async ({ ctx, input }) => {
      const done = await redeliver(ctx.deps, ctx.principal.clientId, input.id, input.eventId);
      return ok({ ...done, nextAt: done.nextAt.toISOString() });
    }),

  adminTestWebhookEndpoint: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'POST',
        path: `${PATH}/{id}/test`,
        summary: 'Send a test event to an endpoint',
        description:
          'POSTs a `webhook_test` event (openapi.json `webhooks`) now, signed with the ' +
          'endpoint’s secret (both during a rotation’s overlap), whatever its event types and ' +
          'also while paused, and answers what the receiver made of it; the attempt is logged, ' +
          'never retried. 409 for a retired endpoint.',
        tags: ['admin'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          id,
          timeoutSeconds: z
            .int()
            .min(1)
            .max(30)
            .default(DELIVERY_TIMEOUT_MS / 1000)
            .meta({
              description: `How long to wait for the receiver’s answer, 1–30 s (default ${DELIVERY_TIMEOUT_MS / 1000}, as deliveries)`,
            }),
        })
        .meta({ id: 'AdminTestWebhookEndpointInput' }),
    )
    .output(success(WebhookDeliverySchema))
    .mutation(async ({ ctx, input }) => {
      const { delivery } = await sendTestEvent(ctx.deps, ctx.principal.clientId, input.id, {
        timeoutMs: input.timeoutSeconds * 1000,
      });
      return ok(toDelivery(delivery));
    }),
});
