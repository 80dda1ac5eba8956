import type { z } from 'zod';
import { API_VERSION, LOCAL_SERVER_URL } from './openapi.js';
import { outputSchema } from './schema-components.js';

type JsonObject = Record<string, unknown>;

/** A live subscription as asyncapi.json describes it (routers/live-schemas.ts LIVE_STREAMS). */
export interface LiveStream {
  procedure: string;
  summary: string;
  description: string;
  input: z.ZodType;
  message: z.ZodType;
  /** Each message's SSE `id` is its event id (tRPC `tracked`). */
  tracked: boolean;
}

/** The schema id (`.meta({ id })`) of a zod schema. */
function idOf(schema: z.ZodType): string {
  const id = schema.meta()?.id;
  if (typeof id !== 'string') throw new Error('A live stream schema needs .meta({ id })');
  return id;
}

/**
 * AsyncAPI's schema (JSON Schema draft 7 plus a few keywords) names a
 * discriminator by its property alone, where OpenAPI has an object.
 */
function asyncApiDiscriminators(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) asyncApiDiscriminators(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as JsonObject;
  const discriminator = object.discriminator as { propertyName?: string } | undefined;
  if (discriminator?.propertyName) object.discriminator = discriminator.propertyName;
  for (const value of Object.values(object)) asyncApiDiscriminators(value);
}

const WIRE_FORMAT =
  'tRPC’s Server-Sent Events format (`text/event-stream`): an `event: connected` first, then ' +
  'one `data:` line per message (the JSON below), with `id:` for resumable streams, ' +
  '`event: ping` every 15 s, and `event: serialized-error` with the tRPC error shape ' +
  '(`data.errorCode`: UNAUTHENTICATED, RATE_LIMITED, NOT_FOUND, UNAVAILABLE, …) before a ' +
  'stream ends. tRPC’s `httpSubscriptionLink` and any EventSource read it.';

const SOCKET_WIRE_FORMAT =
  'tRPC’s WebSocket protocol (JSON text frames, tRPC’s `wsLink`): connect to `/trpc` with ' +
  '`?connectionParams=1` and send `{"method":"connectionParams","data":{"token":"<bearer ' +
  'token>"}}` first (or send the Authorization header with the upgrade); the token is ' +
  'verified then, once. Subscribe with `{"id":<n>,"method":"subscription","params":' +
  '{"path":"myEvents"|"leaderboardEvents"|"adminLeaderboardEvents","input":{…},"lastEventId":"<id>"}}`; the server ' +
  'answers `{"id":<n>,"result":{"type":"started"}}`, then one `{"id":<n>,"result":' +
  '{"type":"data","id":"<event id>","data":{"id":"<event id>","data":<message>}}}` per ' +
  'message (`result.id` only on myEvents), and `{"id":<n>,"error":<tRPC error shape>}` ' +
  'before a subscription ends (`data.errorCode` as over SSE); `{"id":<n>,"method":' +
  '"subscription.stop"}` stops one. Many subscriptions share one connection. The server ' +
  'sends `PING` after 15 s of quiet (answer `PONG`; wsLink does). It closes the connection ' +
  'with 4401 when the token expires (connect again with a fresh one, resuming by ' +
  '`lastEventId`), 4404 when the account was deleted, 1012 when it shuts down (reconnect). ' +
  'Over it only subscriptions are served (a query or mutation is refused with ' +
  'METHOD_NOT_ALLOWED). An upgrade over the per-address or per-instance limit is refused ' +
  'before the handshake with 429 or 503 and `Retry-After`.';

/**
 * asyncapi.json (AsyncAPI 3.1): the live subscriptions, each a channel at
 * `GET /trpc/<procedure>` the client receives from, its message schemas
 * generated from the zod schemas the procedures check every message with
 * (the same builder as openapi.json's webhooks).
 */
export function buildAsyncApiDocument(streams: readonly LiveStream[]): JsonObject {
  const schemas: Record<string, JsonObject> = {};
  const messages: Record<string, JsonObject> = {};
  const channels: Record<string, JsonObject> = {};
  const operations: Record<string, JsonObject> = {};
  const local = new URL(LOCAL_SERVER_URL);
  for (const stream of streams) {
    const messageName = idOf(stream.message);
    outputSchema(stream.input, schemas);
    const inputName = idOf(stream.input);
    messages[messageName] = {
      name: messageName,
      title: messageName,
      contentType: 'application/json',
      payload: outputSchema(stream.message, schemas),
      ...(stream.tracked
        ? {
            correlationId: {
              description: 'The SSE `id:` of the message: its event id, sent back to resume',
              location: '$message.payload#/id',
            },
          }
        : {}),
    };
    channels[stream.procedure] = {
      address: `/trpc/${stream.procedure}`,
      title: stream.procedure,
      summary: stream.summary,
      description: `${stream.description}\n\n${WIRE_FORMAT}`,
      servers: [{ $ref: '#/servers/local' }],
      messages: { [messageName]: { $ref: `#/components/messages/${messageName}` } },
    };
    operations[`receive${stream.procedure[0]!.toUpperCase()}${stream.procedure.slice(1)}`] = {
      action: 'receive',
      channel: { $ref: `#/channels/${stream.procedure}` },
      summary: stream.summary,
      description:
        `Open with GET /trpc/${stream.procedure}, the input as the URL-encoded JSON query ` +
        'parameter `input`' +
        (stream.tracked ? '; resume with the `Last-Event-ID` header or `lastEventId`.' : '.'),
      security: [{ $ref: '#/components/securitySchemes/bearerAuth' }],
      bindings: {
        http: {
          method: 'GET',
          query: {
            type: 'object',
            properties: {
              input: {
                type: 'string',
                description: `The input, URL-encoded JSON (the ${inputName} schema); may be left out`,
              },
              connectionParams: {
                type: 'string',
                description:
                  'URL-encoded JSON `{"token":"<bearer token>"}`, for clients (a browser’s ' +
                  'EventSource) that cannot send the Authorization header',
              },
            },
          },
          bindingVersion: '0.3.0',
        },
      },
      messages: [{ $ref: `#/channels/${stream.procedure}/messages/${messageName}` }],
    };
  }
  // Every stream over one WebSocket: a channel of its own, on the ws server.
  const streamMessages = Object.fromEntries(
    streams.map((stream) => {
      const name = idOf(stream.message);
      return [name, { $ref: `#/components/messages/${name}` }];
    }),
  );
  channels.socket = {
    address: '/trpc',
    title: 'live subscriptions over a WebSocket',
    summary: 'The live subscriptions over one WebSocket (tRPC’s wsLink)',
    description: SOCKET_WIRE_FORMAT,
    servers: [{ $ref: '#/servers/localSocket' }],
    messages: streamMessages,
  };
  operations.receiveOverSocket = {
    action: 'receive',
    channel: { $ref: '#/channels/socket' },
    summary: 'Subscribe to the live subscriptions over one WebSocket',
    description:
      'The same procedures, inputs, messages, limits and resume as the SSE channels; the ' +
      'typed client’s default transport.',
    security: [{ $ref: '#/components/securitySchemes/bearerAuth' }],
    bindings: {
      ws: {
        query: {
          type: 'object',
          properties: {
            connectionParams: {
              type: 'string',
              const: '1',
              description: 'The first message carries the token (connection parameters)',
            },
          },
        },
        bindingVersion: '0.1.0',
      },
    },
    messages: Object.keys(streamMessages).map((name) => ({
      $ref: `#/channels/socket/messages/${name}`,
    })),
  };
  for (const schema of Object.values(schemas)) asyncApiDiscriminators(schema);
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'User Profile Service live streams',
      version: API_VERSION,
      description:
        'The tRPC subscriptions of the User Profile Service, served as Server-Sent Events ' +
        '(a channel per stream) and over one WebSocket (the `socket` channel). ' +
        'The service’s REST operations and its webhooks are in openapi.json; the design and ' +
        'guarantees of both are in docs/LIVE.md.',
    },
    defaultContentType: 'application/json',
    servers: {
      local: {
        host: local.host,
        protocol: local.protocol.replace(':', ''),
        description: 'Local development (npm start)',
        security: [{ $ref: '#/components/securitySchemes/bearerAuth' }],
      },
      localSocket: {
        host: local.host,
        protocol: local.protocol === 'https:' ? 'wss' : 'ws',
        description: 'Local development (npm start), WebSocket',
        security: [{ $ref: '#/components/securitySchemes/bearerAuth' }],
      },
    },
    channels,
    operations,
    components: {
      schemas,
      messages,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A fan’s JWT, as for the REST operations (for adminLeaderboardEvents, a service ' +
            'token with the `admin` scope): the Authorization header, or the ' +
            '`connectionParams` query parameter (SSE) or connection parameters (WebSocket).',
        },
      },
    },
  };
}
