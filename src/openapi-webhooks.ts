/**
 * openapi.json's webhooks: what the service POSTs to each webhook endpoint,
 * one operation per event type, with the Standard Webhooks headers.
 */
import type { z } from 'zod';
import type { JsonObject } from './openapi-operations.js';
import { inputMeta } from './openapi-schema-rules.js';
import { outputSchema } from './schema-components.js';

/** An event a webhook receiver gets: its `type` and the zod schema of the body. */
export interface WebhookEvent {
  type: string;
  schema: z.ZodType;
}

/** The Standard Webhooks headers of every delivery, and the trace context when tracing is on. */
const WEBHOOK_HEADERS: JsonObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The event id (the body’s `id`): the same on every retry of the event. Delivery is at ' +
      'least once: dedupe on it.',
    schema: { type: 'string', pattern: '^[1-9][0-9]*$' },
    example: '7',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'When this attempt was signed, in seconds since the epoch. Refuse one far from your ' +
      'clock (Standard Webhooks libraries allow 5 minutes) against replays.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795651267',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` ' +
      'keyed with the endpoint’s secret (the base64 after `whsec_`); two while a changed ' +
      'secret overlaps the old one. Any Standard Webhooks library verifies it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
  {
    name: 'traceparent',
    in: 'header',
    required: false,
    description:
      'W3C trace context of this delivery’s trace, when the service exports traces ' +
      '(docs/OPERATIONS.md, Traces).',
    schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-0[0-9a-f]$' },
  },
];

const RETRIED =
  'Counted as a failure, like no answer within 10 s: retried after 1 s, 2 s, 4 s, … (at most ' +
  '1 h apart) for WEBHOOK_RETRY_FOR_SECONDS after the event, then given up. The user’s next ' +
  'event waits meanwhile.';

/**
 * openapi.json's `webhooks` (OpenAPI 3.1): one POST per event type, its body
 * the event's schema (from the same zod schemas the streams check their
 * messages with), the Standard Webhooks headers, what the answer means.
 */
export function webhooksOf(events: readonly WebhookEvent[], schemas: Record<string, JsonObject>) {
  return Object.fromEntries(
    events.map(({ type, schema }) => {
      const { description } = inputMeta(schema);
      const camel = type.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
      return [
        type,
        {
          post: {
            operationId: `${camel}Webhook`,
            summary: `The ${type} event`,
            description: `${String(description ?? '')} The body is the event message (LiveEvent); receivers ignore fields they do not know.`,
            tags: ['webhooks'],
            security: [],
            parameters: structuredClone(WEBHOOK_HEADERS),
            requestBody: {
              required: true,
              content: { 'application/json': { schema: outputSchema(schema, schemas) } },
            },
            responses: {
              '2XX': { description: 'Delivered: the event is not sent again.' },
              '4XX': { description: RETRIED },
              '5XX': { description: RETRIED },
            },
          },
        },
      ];
    }),
  );
}
