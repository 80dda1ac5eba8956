import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { z } from 'zod';
import { ERROR_TABLE, ErrorEnvelopeSchema, type ErrorBody } from './error-mapping.js';
import { ERROR_CODES, type ErrorCode } from './app-error.js';
import { PROFILE_FIELD_TABLE, PROFILE_FIELDS, type ProfileField } from '../db/profile-fields.js';
import { HANDLE_PATTERN } from './domain/profile.js';
import { REQUEST_EXAMPLES, RESPONSE_EXAMPLES, type Examples } from './openapi-examples.js';

export const API_VERSION = '1.0.0';

/** Every tag an operation may carry, declared once with its description. */
export const TAGS = [
  {
    name: 'user',
    description: 'The signed-in user: profile, onboarding, quests and points ledger.',
  },
  { name: 'leaderboard', description: 'Ranks by points: the whole board, team boards, and you.' },
  {
    name: 'health',
    description: 'Liveness and readiness, for load balancers and orchestrators. No token needed.',
  },
] as const;

export type TagName = (typeof TAGS)[number]['name'];

/** How one operation is documented beyond what the adapter can derive from its procedure. */
export interface OperationDoc {
  tag: TagName;
  /** `bearer`: needs a token (a `protectedProcedure` with `protect: true`); `public`: none. */
  auth: 'bearer' | 'public';
  /** Every error status the operation can answer with; each is documented with the envelope. */
  errors: readonly ErrorStatus[];
  /** Description of the 201 the operation answers the first time (the adapter documents only 200). */
  created?: string;
  /** The fewest body fields the procedure accepts (a zod refine the adapter cannot express). */
  minBodyProperties?: number;
}

type ErrorStatus = (typeof ERROR_TABLE)[ErrorCode]['status'];

/** What a JSON-body write can fail with. */
const WRITE_ERRORS = [400, 401, 403, 409, 413, 415, 429, 500, 503] as const;
/** What a read without parameters can fail with. */
const READ_ERRORS = [401, 403, 429, 500, 503] as const;
/** What a read with query parameters (a cursor, a limit) can fail with. */
const QUERY_ERRORS = [400, ...READ_ERRORS] as const;

/**
 * One row per operation, keyed by procedure name. A new procedure with OpenAPI
 * meta needs a row here: `operationTableProblems` reports a missing one and a
 * unit test fails on it.
 */
export const OPERATIONS: Record<string, OperationDoc> = {
  updateUser: { tag: 'user', auth: 'bearer', errors: WRITE_ERRORS, minBodyProperties: 1 },
  onboardProfile: {
    tag: 'user',
    auth: 'bearer',
    errors: WRITE_ERRORS,
    created: 'Onboarded by this call: quests synced and points awarded',
  },
  me: { tag: 'user', auth: 'bearer', errors: READ_ERRORS },
  exportAccount: { tag: 'user', auth: 'bearer', errors: READ_ERRORS },
  deleteAccount: { tag: 'user', auth: 'bearer', errors: READ_ERRORS },
  quests: { tag: 'user', auth: 'bearer', errors: READ_ERRORS },
  pointsHistory: { tag: 'user', auth: 'bearer', errors: QUERY_ERRORS },
  leaderboard: { tag: 'leaderboard', auth: 'bearer', errors: [400, 401, 403, 404, 429, 500, 503] },
  leaderboardSeasons: { tag: 'leaderboard', auth: 'bearer', errors: QUERY_ERRORS },
  leaderboardAroundMe: {
    tag: 'leaderboard',
    auth: 'bearer',
    errors: [400, 401, 403, 404, 429, 500, 503],
  },
};

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

interface ProcedureDef {
  _def: {
    inputs: unknown[];
    meta?: { serviceScope?: string; openapi?: { tags?: string[]; errorResponses?: unknown } };
  };
}

function procedure(router: OpenApiRouter, name: string): ProcedureDef | undefined {
  return (router._def.procedures as Record<string, ProcedureDef | undefined>)[name];
}

/** Whether the procedure's zod input refuses unknown keys (the adapter drops this for refined schemas). */
function refusesUnknownKeys(router: OpenApiRouter, procedureName: string): boolean {
  const input = procedure(router, procedureName)?._def.inputs[0];
  return input instanceof z.ZodObject && input.def.catchall instanceof z.ZodNever;
}

/**
 * OPERATIONS is the one place that declares tags and error statuses: a
 * procedure's meta that declares them too is reported, so the two can never
 * disagree.
 */
export function metaProblems(
  name: string,
  meta: { tags?: unknown; errorResponses?: unknown } | undefined,
): string[] {
  return meta?.tags || meta?.errorResponses
    ? [`${name}: declare tags and errorResponses in OPERATIONS (src/openapi.ts), not in the meta`]
    : [];
}

/**
 * Operations without a row in OPERATIONS, rows without an operation, and
 * procedure meta that declares what only OPERATIONS may. The generator refuses to write
 * openapi.json while this is not empty, and a unit test fails.
 */
export function operationTableProblems(
  document: Pick<OpenAPIObject, 'paths'>,
  router: OpenApiRouter,
): string[] {
  const ids = listOperations(document)
    .filter(({ path }) => !Object.hasOwn(HEALTH_PATHS, path))
    .map(
      ({ path, method, operation }) => operation.operationId ?? `${method.toUpperCase()} ${path}`,
    );
  return [
    ...ids
      .filter((id) => !Object.hasOwn(OPERATIONS, id))
      .map((id) => `operation ${id} has no row in OPERATIONS (src/openapi.ts)`),
    ...Object.keys(OPERATIONS)
      .filter((id) => !ids.includes(id))
      .map((id) => `OPERATIONS row ${id} matches no operation`),
    ...Object.keys(OPERATIONS).flatMap((id) =>
      metaProblems(id, procedure(router, id)?._def.meta?.openapi),
    ),
  ];
}

/** Where the committed openapi.json says the service is: the local one (`npm start`). */
export const LOCAL_SERVER_URL = 'http://localhost:3000';

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

/** The `id` a zod schema was registered with (`.meta({ id })`). */
function schemaId(schema: unknown): string | undefined {
  const meta = schema instanceof z.ZodType ? schema.meta() : undefined;
  return typeof meta?.id === 'string' ? meta.id : undefined;
}

/**
 * The OpenAPI document: generated from the routers by trpc-to-openapi, then
 * corrected where the adapter describes something the service does not do.
 * Driven by OPERATIONS, so a new operation gets the same treatment from a
 * table row: declared tags, a checked security requirement, every error
 * response with our envelope (the adapter's error.* schemas are removed), an
 * honest request body, and 201 where an operation creates.
 */
export function buildOpenApiDocument(
  router: OpenApiRouter,
  options: { serverUrl?: string } = {},
): OpenAPIObject {
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
          'A JWT from the identity provider: a fan’s token for the fan operations, or a ' +
          'service’s OAuth 2.0 client-credentials token (RFC 9068) holding the scope an ' +
          'operation’s security requirement names. Locally, `npm run token -- <subject>` prints ' +
          'a fan’s token and `npm run token -- --service <client-id> --scope <scope>` a ' +
          'service’s.',
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
    const row = OPERATIONS[id];
    if (!row) continue; // reported by operationTableProblems
    operation.tags = [row.tag];

    const documented = (operation.security ?? []).length > 0;
    if (documented !== (row.auth === 'bearer')) {
      throw new Error(
        `${method.toUpperCase()} ${path}: OPERATIONS says auth "${row.auth}" but the procedure ` +
          `meta says protect: ${documented}`,
      );
    }
    if (!documented) operation.security = [];
    const serviceScope = procedure(router, id)?._def.meta?.serviceScope;
    // OpenAPI 3.1 lets a non-OAuth scheme's requirement list the roles it needs: the scope.
    if (documented && serviceScope) operation.security = [{ bearerAuth: [serviceScope] }];
    const caller: Caller = serviceScope ? 'service' : 'fan';

    const media = operation.requestBody?.content?.['application/json'];
    const body = media?.schema;
    if (media && body) {
      if (refusesUnknownKeys(router, id)) body.additionalProperties = false;
      if (row.minBodyProperties !== undefined) body.minProperties = row.minBodyProperties;
      addFieldRules(body, requestFieldRules);
      // A named component, so generators name the type and Swagger UI shows it once.
      const name = schemaId(procedure(router, id)?._def.inputs[0]) ?? `${id}Input`;
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
    if (row.created && responses['200']) {
      responses['201'] = structuredClone({ ...responses['200'], description: row.created });
    }
    for (const [status, examples] of Object.entries(RESPONSE_EXAMPLES[id] ?? {})) {
      const content = responses[status]?.content as Record<string, JsonObject> | undefined;
      if (content?.['application/json']) content['application/json'].examples = examples;
    }
    for (const status of row.errors) {
      responses[String(status)] = errorResponse(status, body !== undefined, caller);
    }
    operation.responses = Object.fromEntries(
      Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
    );
  }
  for (const name of STORED_PROFILE_SCHEMAS) addFieldRules(schemas[name], storedFieldRules);
  Object.assign(schemas, HEALTH_SCHEMAS);
  document.paths = { ...document.paths, ...structuredClone(HEALTH_PATHS) };
  return document;
}
