import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { z } from 'zod';
import { ERROR_TABLE, ErrorEnvelopeSchema, type ErrorBody } from './error-mapping.js';
import { ERROR_CODES, type ErrorCode } from './app-error.js';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS, type ProfileField } from '../db/profile-fields.js';
import { HANDLE_PATTERN } from './domain/profile.js';
import { REQUEST_EXAMPLES, RESPONSE_EXAMPLES, type Examples } from './openapi-examples.js';
import { listProcedures, type ProcedureInfo } from './trpc/procedures.js';
import type { ServiceScope } from './auth/principal.js';
import { outputSchema } from './schema-components.js';

export const API_VERSION = '1.0.0';

/** Every tag an operation may carry, declared once with its description. */
export const TAGS = [
  {
    name: 'user',
    description: 'The signed-in user: profile, onboarding, quests and points ledger.',
  },
  { name: 'leaderboard', description: 'Ranks by points: the whole board, team boards, and you.' },
  {
    name: 'events',
    description:
      'For the fan app’s other services (a service token with the events:write scope): points ' +
      'from activity, exactly once.',
  },
  {
    name: 'admin',
    description:
      'Running the game (a service token with the admin scope): definitions, adjustments, bans, ' +
      'the audit log, webhook endpoints.',
  },
  {
    name: 'webhooks',
    description:
      'What the service POSTs to each webhook endpoint: one request per event, signed per ' +
      'Standard Webhooks (docs/LIVE.md, "Webhooks").',
  },
  {
    name: 'health',
    description: 'Liveness and readiness, for load balancers and orchestrators. No token needed.',
  },
] as const;

export type TagName = (typeof TAGS)[number]['name'];

/** The 400 example of an operation that takes query parameters instead of a body. */
const QUERY_VALIDATION_EXAMPLE: ErrorBody = {
  success: false,
  error: {
    code: 'VALIDATION_FAILED',
    message: 'cursor: Not a cursor this list gave out: pass nextCursor back unchanged',
    issues: [
      {
        path: 'cursor',
        message: 'Not a cursor this list gave out: pass nextCursor back unchanged',
      },
    ],
  },
};

/** A real body per contract code, shown as the example of each error response. */
const ERROR_EXAMPLES: Record<ErrorCode, ErrorBody> = {
  VALIDATION_FAILED: {
    success: false,
    error: {
      code: 'VALIDATION_FAILED',
      message: 'favouriteTeam: Unknown field "favouriteTeam"',
      issues: [{ path: 'favouriteTeam', message: 'Unknown field "favouriteTeam"' }],
    },
  },
  UNAUTHENTICATED: {
    success: false,
    error: {
      code: 'UNAUTHENTICATED',
      message: 'A bearer token is required: send "Authorization: Bearer <token>"',
    },
  },
  FAN_TOKEN_REQUIRED: {
    success: false,
    error: {
      code: 'FAN_TOKEN_REQUIRED',
      message:
        'This operation acts for a signed-in fan; it cannot be called with a service token ' +
        '(client "checkin-service")',
    },
  },
  INSUFFICIENT_SCOPE: {
    success: false,
    error: {
      code: 'INSUFFICIENT_SCOPE',
      message:
        'This operation needs the "admin" scope; the token of client "checkin-service" has ' +
        '"events:write"',
    },
  },
  CLIENT_NOT_ALLOWED: {
    success: false,
    error: {
      code: 'CLIENT_NOT_ALLOWED',
      message:
        'The client "quiz-service" is not among the services this deployment trusts ' +
        '(SERVICE_CLIENT_IDS)',
    },
  },
  NOT_FOUND: {
    success: false,
    error: {
      code: 'NOT_FOUND',
      message: 'You are not on the leaderboard yet: onboard first (POST /api/user/profile)',
    },
  },
  METHOD_NOT_ALLOWED: {
    success: false,
    error: {
      code: 'METHOD_NOT_ALLOWED',
      message: 'DELETE is not supported on /api/user/profile: use POST',
    },
  },
  HANDLE_TAKEN: {
    success: false,
    error: { code: 'HANDLE_TAKEN', message: 'The handle "ann" is taken' },
  },
  HANDLE_CHANGE_COOLDOWN: {
    success: false,
    error: {
      code: 'HANDLE_CHANGE_COOLDOWN',
      message:
        'You changed your handle recently: the next change is allowed from 2026-12-23T19:00:00.000Z',
      issues: [{ path: 'handle', message: 'Handle changes are on cooldown' }],
      retryAt: '2026-12-23T19:00:00.000Z',
    },
  },
  INSUFFICIENT_BALANCE: {
    success: false,
    error: {
      code: 'INSUFFICIENT_BALANCE',
      message: 'Reversing "checkin-42" would take the fan\'s balance below 0: adjust it first',
    },
  },
  POINTS_LIMIT_REACHED: {
    success: false,
    error: {
      code: 'POINTS_LIMIT_REACHED',
      message:
        "An adjustment of 500000 would take the fan's points past 2,000,000,000, the most a " +
        'balance or a board entry may hold',
    },
  },
  DEFINITION_CONFLICT: {
    success: false,
    error: {
      code: 'DEFINITION_CONFLICT',
      message: 'quest "weekly_checkins" is at version 3, not 2: read it again and resend',
    },
  },
  WEBHOOK_ENDPOINT_CONFLICT: {
    success: false,
    error: {
      code: 'WEBHOOK_ENDPOINT_CONFLICT',
      message:
        'The webhook endpoint 5b1f0c1e-9d8a-4c3e-a7b2-2f6e8d4c1a90 is retired: create a new one',
    },
  },
  PAYLOAD_TOO_LARGE: {
    success: false,
    error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 16 KiB' },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    success: false,
    error: {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type "text/plain" is not supported: send application/json',
    },
  },
  RATE_LIMITED: {
    success: false,
    error: { code: 'RATE_LIMITED', message: 'Too many requests for this user; slow down' },
  },
  INTERNAL: { success: false, error: { code: 'INTERNAL', message: 'Internal server error' } },
  UNAVAILABLE: {
    success: false,
    error: {
      code: 'UNAVAILABLE',
      message: 'The database is unavailable right now; retry shortly',
    },
  },
};

const ERROR_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: {
    'WWW-Authenticate': {
      description: 'Bearer error="invalid_token" (RFC 6750)',
      required: true,
      schema: { type: 'string' },
    },
  },
  403: {
    'WWW-Authenticate': {
      description:
        'With INSUFFICIENT_SCOPE: Bearer error="insufficient_scope", scope="<the scope needed>" ' +
        '(RFC 6750)',
      schema: { type: 'string' },
    },
  },
  429: {
    'Retry-After': {
      description: 'Seconds to wait before retrying',
      required: true,
      schema: { type: 'integer', minimum: 1 },
    },
  },
  503: {
    'Retry-After': {
      description: 'Seconds to wait before retrying',
      schema: { type: 'integer', minimum: 1 },
    },
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
};

type JsonObject = Record<string, unknown>;

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; description?: string; schema?: JsonObject }[];
  requestBody?: { content?: Record<string, { schema?: JsonObject; examples?: Examples }> };
  responses?: Record<string, JsonObject>;
}

/** The keys of an OpenAPI path item that are operations (the rest are parameters, summary, …). */
export const HTTP_METHODS: readonly string[] = [
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
];

/** Every operation of a document with its path and method. */
export function listOperations(
  document: Pick<OpenAPIObject, 'paths'>,
): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item as Record<string, Operation>)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** Who an authenticated operation is for: a fan (protectedProcedure) or a service (serviceProcedure). */
type Caller = 'fan' | 'service';

const callerOf = (procedure: ProcedureInfo): Caller =>
  procedure.meta?.serviceScope ? 'service' : 'fan';

/** The 403 codes only one kind of operation answers with: the wrong kind of token, a missing scope. */
const CALLER_CODES: Record<Caller, readonly ErrorCode[]> = {
  fan: ['FAN_TOKEN_REQUIRED'],
  service: ['INSUFFICIENT_SCOPE', 'CLIENT_NOT_ALLOWED'],
};

/** Which contract codes answer with a status, on an operation for `caller`. */
function codesFor(status: number, caller: Caller): ErrorCode[] {
  const other = CALLER_CODES[caller === 'fan' ? 'service' : 'fan'];
  return ERROR_CODES.filter((code) => ERROR_TABLE[code].status === status && !other.includes(code));
}

function errorResponse(status: number, hasBody: boolean, caller: Caller): JsonObject {
  const codes = codesFor(status, caller);
  const headers = status === 403 && caller === 'fan' ? undefined : ERROR_HEADERS[status];
  const example = (code: ErrorCode) =>
    code === 'VALIDATION_FAILED' && !hasBody ? QUERY_VALIDATION_EXAMPLE : ERROR_EXAMPLES[code];
  return {
    description: `${codes.join(' or ')}: ${STATUS_TEXT[status] ?? 'Error'}`,
    ...(headers ? { headers } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
        examples: Object.fromEntries(
          codes.map((code) => [code, { summary: code, value: example(code) }]),
        ),
      },
    },
  };
}

/** Whether a zod input refuses unknown keys (the adapter drops this for refined schemas). */
function refusesUnknownKeys(input: unknown): boolean {
  return input instanceof z.ZodObject && input.def.catchall instanceof z.ZodNever;
}

/**
 * What an operation's meta must declare for the document to describe it:
 * one declared tag, and every error status it can answer with, each one a
 * status some contract code answers with. Anything missing is a start-up
 * (and `npm run openapi`) error, so an operation is declared whole in its
 * procedure or not at all.
 */
export function operationMetaProblems(procedure: ProcedureInfo): string[] {
  const openapi = procedure.meta?.openapi;
  if (!openapi) return [];
  const name = procedure.path;
  const problems: string[] = [];
  const tags = openapi.tags ?? [];
  if (tags.length !== 1 || !TAGS.some((tag) => tag.name === tags[0])) {
    problems.push(
      `${name}: meta.openapi.tags must be one of ${TAGS.map((tag) => tag.name).join(', ')}`,
    );
  }
  const errors = openapi.errorResponses;
  if (!Array.isArray(errors) || errors.length === 0) {
    problems.push(`${name}: meta.openapi.errorResponses must list its error statuses`);
  } else {
    for (const status of errors) {
      if (codesFor(status, callerOf(procedure)).length === 0) {
        problems.push(`${name}: no contract code answers with status ${status}`);
      }
    }
  }
  return problems;
}

/** Where the committed openapi.json says the service is: the local one (`npm start`). */
export const LOCAL_SERVER_URL = 'http://localhost:3000';

/**
 * The service scopes as the client-credentials scheme declares them (every
 * scope of src/auth/principal.ts, each described). The token endpoint is the
 * identity provider's, which the service does not know: an example
 * (docs/decisions/0061).
 */
export const SERVICE_SCOPE_DESCRIPTIONS: Readonly<Record<ServiceScope, string>> = {
  'events:write': 'Record your events and reverse them (POST /api/events, /api/events/reversals)',
  admin: 'The admin API: definitions, fans, reversals of any client’s events, audit, webhooks',
};
const SERVICE_TOKEN_URL_EXAMPLE = 'https://id.fan-app.example/oauth2/token';

const HEALTH_RESPONSE_EXAMPLES = {
  healthz: { alive: { summary: 'The process is up', value: { status: 'ok' } } },
  readyz: {
    ready: {
      summary: 'The database answers',
      value: { status: 'ready', database: 'postgres' },
    },
  },
} satisfies Record<string, Examples>;

/**
 * GET /healthz and GET /readyz: plain Express routes (src/app.ts), not
 * procedures, so they are described here. Public, never rate limited.
 */
export const HEALTH_PATHS: Record<string, { get: JsonObject }> = {
  '/healthz': {
    get: {
      operationId: 'healthz',
      summary: 'Liveness: the process is up',
      description:
        'Answers 200 while the process runs, without touching the database. For liveness probes.',
      tags: ['health'],
      security: [],
      responses: {
        '200': {
          description: 'Alive',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Health' },
              examples: HEALTH_RESPONSE_EXAMPLES.healthz,
            },
          },
        },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'readyz',
      summary: 'Readiness: the database answers',
      description:
        'Answers 200 when a query reaches the database, 503 when it does not. For readiness ' +
        'probes and load balancers: send traffic only while it answers 200.',
      tags: ['health'],
      security: [],
      responses: {
        '200': {
          description: 'Ready',
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Readiness' },
              examples: HEALTH_RESPONSE_EXAMPLES.readyz,
            },
          },
        },
        '503': {
          description: 'UNAVAILABLE: the database is not reachable',
          headers: { 'Retry-After': ERROR_HEADERS[503]!['Retry-After'] },
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorEnvelope' },
              examples: {
                UNAVAILABLE: {
                  summary: 'UNAVAILABLE',
                  value: {
                    success: false,
                    error: { code: 'UNAVAILABLE', message: 'The database is not reachable' },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

const HEALTH_SCHEMAS: Record<string, JsonObject> = {
  Health: {
    type: 'object',
    properties: { status: { const: 'ok' } },
    required: ['status'],
    additionalProperties: false,
  },
  Readiness: {
    type: 'object',
    properties: {
      status: { const: 'ready' },
      database: {
        enum: ['postgres', 'pglite'],
        description: 'postgres: DATABASE_URL; pglite: the embedded database in DATA_DIR',
      },
    },
    required: ['status', 'database'],
    additionalProperties: false,
  },
};

/** An https: URL as a request may spell it: schemes are case-insensitive (WHATWG URL). */
const HTTPS_SCHEME = '[Hh][Tt][Tt][Pp][Ss]:';

/** Surrounding whitespace, which the service trims before any rule, around `inner` or nothing. */
const trimmed = (inner: string) => String.raw`^\s*(?:${inner})?\s*$`;

/**
 * A profile field as a request may send it. The service trims surrounding
 * whitespace, and an empty value clears the field, before a rule applies, so
 * the patterns allow both: a validating proxy must never refuse what the
 * service accepts (docs/API.md, "Field rules in the document").
 */
function requestFieldRules(field: ProfileField): JsonObject {
  const { rule, max } = PROFILE_FIELD_TABLE[field];
  if (rule === 'handle') return { pattern: trimmed(`@?${HANDLE_PATTERN.source.slice(1, -1)}`) };
  if (rule === 'url') return { pattern: trimmed(`${HTTPS_SCHEME}[\\s\\S]*`) };
  return { pattern: trimmed(String.raw`\S(?:[\s\S]{0,${max - 2}}\S)?`) };
}

/** A profile field as the service stores and sends it: exactly the rule. */
function storedFieldRules(field: ProfileField): JsonObject {
  const { rule, min, max } = PROFILE_FIELD_TABLE[field];
  if (rule === 'handle') return { pattern: HANDLE_PATTERN.source };
  // Stored in its canonical WHATWG form: always lower-case https://.
  if (rule === 'url') return { format: 'uri', pattern: '^https://', maxLength: max };
  return { ...(min > 0 ? { minLength: min } : {}), maxLength: max };
}

/** Adds the field rules to every profile field of an object schema. */
function addFieldRules(schema: JsonObject | undefined, rules: (field: ProfileField) => JsonObject) {
  const properties = schema?.properties as Record<string, JsonObject> | undefined;
  for (const field of PROFILE_FIELDS) {
    if (properties?.[field]) Object.assign(properties[field], rules(field));
  }
}

/** Schemas whose profile fields hold stored values (`handle`, `name`, `profileUrl`, …). */
const STORED_PROFILE_SCHEMAS = ['User', 'UpdatedProfile', 'LeaderboardEntry'];

/** A zod schema's metadata (`.meta({ … })`). */
function inputMeta(schema: unknown): Record<string, unknown> {
  return (schema instanceof z.ZodType ? schema.meta() : undefined) ?? {};
}

/** The `id` a zod schema was registered with (`.meta({ id })`). */
function schemaId(schema: unknown): string | undefined {
  const { id } = inputMeta(schema);
  return typeof id === 'string' ? id : undefined;
}

/**
 * The OpenAPI document: generated from the routers by trpc-to-openapi, then
 * corrected where the adapter describes something the service does not do.
 * Driven by each procedure's meta, so a new operation gets the same
 * treatment: every error status it declares answered with our envelope (the
 * adapter's error.* schemas are removed), an honest request body, and 201
 * where an operation creates. Throws when an operation's meta is incomplete
 * (operationMetaProblems).
 */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  options: { serverUrl?: string; webhooks?: readonly WebhookEvent[] } = {},
): OpenAPIObject {
  const procedures = listProcedures(router);
  const problems = procedures.flatMap(operationMetaProblems);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const byOperationId = new Map(
    procedures.map((procedure) => [
      procedure.meta?.openapi?.operationId ?? procedure.path,
      procedure,
    ]),
  );

  const document = generateOpenApiDocument(router, {
    title: 'User Profile Service',
    version: API_VERSION,
    description:
      'Profiles, quests, a points ledger and a leaderboard for a sports-fan app. Every ' +
      'operation is also a tRPC procedure at /trpc. Errors use one envelope: ' +
      '`{ "success": false, "error": { "code", "message", "issues"? } }`.',
    baseUrl: '/',
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A fan’s JWT from the identity provider, for the fan operations. Locally, ' +
          '`npm run token -- <subject>` prints one.',
      },
      serviceAuth: {
        type: 'oauth2',
        description:
          'A service’s OAuth 2.0 client-credentials access token (a JWT, RFC 9068) from the ' +
          'same identity provider, holding the scope the operation’s requirement names. Get it ' +
          'from your provider’s token endpoint (its discovery document’s `token_endpoint`; the ' +
          '`tokenUrl` here is an example). Locally, ' +
          '`npm run token -- --service <client-id> --scope <scope>` prints one.',
        flows: {
          clientCredentials: {
            tokenUrl: SERVICE_TOKEN_URL_EXAMPLE,
            scopes: { ...SERVICE_SCOPE_DESCRIPTIONS },
          },
        },
      },
    },
    defs: { ErrorEnvelope: ErrorEnvelopeSchema },
  });

  document.info.contact = { name: 'User Profile Service maintainers' };
  document.servers = [
    options.serverUrl
      ? {
          url: options.serverUrl,
          description:
            options.serverUrl === '/'
              ? 'The server this document was fetched from (set PUBLIC_URL to name it)'
              : 'This deployment (PUBLIC_URL)',
        }
      : { url: LOCAL_SERVER_URL, description: 'Local development (npm start)' },
  ];
  document.tags = TAGS.map((tag) => ({ ...tag }));
  const schemas = (document.components?.schemas ?? {}) as Record<string, JsonObject>;
  for (const name of Object.keys(schemas)) {
    if (name.startsWith('error.')) delete schemas[name];
  }
  if (schemas.ErrorEnvelope) {
    schemas.ErrorEnvelope.examples = ERROR_CODES.map((code) => ERROR_EXAMPLES[code]);
  }

  for (const { path, method, operation } of listOperations(document)) {
    const id = operation.operationId ?? '';
    const procedure = byOperationId.get(id);
    if (!procedure) continue;
    // A public operation says so, rather than inheriting a document-wide requirement.
    if ((operation.security ?? []).length === 0) operation.security = [];
    const serviceScope = procedure.meta?.serviceScope;
    // A service operation needs a client-credentials token with its scope; a fan's, a fan token.
    if (operation.security?.length) {
      operation.security = serviceScope ? [{ serviceAuth: [serviceScope] }] : [{ bearerAuth: [] }];
    }
    const caller = callerOf(procedure);

    const media = operation.requestBody?.content?.['application/json'];
    const body = media?.schema;
    if (media && body) {
      // The adapter drops both from a refined zod schema (PATCH's needs a field).
      if (refusesUnknownKeys(procedure.input)) body.additionalProperties = false;
      const { minProperties } = inputMeta(procedure.input);
      if (typeof minProperties === 'number') body.minProperties = minProperties;
      addFieldRules(body, requestFieldRules);
      // A named component, so generators name the type and Swagger UI shows it once.
      const name = schemaId(procedure.input) ?? `${id}Input`;
      schemas[name] = body;
      media.schema = { $ref: `#/components/schemas/${name}` };
      const examples = REQUEST_EXAMPLES[id];
      if (examples) media.examples = examples;
    }
    for (const parameter of operation.parameters ?? []) {
      // At parameter level, where Swagger UI and linters look for it.
      if (parameter.schema?.description) {
        parameter.description ??= String(parameter.schema.description);
        delete parameter.schema.description;
      }
      if (parameter.name === 'team' && parameter.schema) {
        const { max } = PROFILE_FIELD_TABLE.favoriteTeam;
        parameter.schema.pattern = String.raw`^\s*\S(?:[\s\S]{0,${max - 2}}\S)?\s*$`;
      }
    }

    const responses: Record<string, JsonObject> = {};
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (Number(status) < 400) responses[status] = response;
    }
    const created = procedure.meta?.created;
    if (created && responses['200']) {
      responses['201'] = structuredClone({ ...responses['200'], description: created });
      if (procedure.meta?.alwaysCreated) delete responses['200'];
    }
    for (const [status, examples] of Object.entries(RESPONSE_EXAMPLES[id] ?? {})) {
      const content = responses[status]?.content as Record<string, JsonObject> | undefined;
      if (content?.['application/json']) content['application/json'].examples = examples;
    }
    for (const status of procedure.meta?.openapi?.errorResponses as number[]) {
      responses[String(status)] = errorResponse(status, body !== undefined, caller);
    }
    operation.responses = Object.fromEntries(
      Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
    );
  }
  for (const name of STORED_PROFILE_SCHEMAS) addFieldRules(schemas[name], storedFieldRules);
  Object.assign(schemas, HEALTH_SCHEMAS);
  document.paths = { ...document.paths, ...structuredClone(HEALTH_PATHS) };
  if (options.webhooks?.length) {
    (document as { webhooks?: JsonObject }).webhooks = webhooksOf(options.webhooks, schemas);
  }
  return document;
}

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
function webhooksOf(events: readonly WebhookEvent[], schemas: Record<string, JsonObject>) {
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
