/**
 * The OpenAPI document: buildOpenApiDocument() assembles openapi.json from
 * the routers, its tags, and the checks each operation's meta must pass. The
 * parts live beside it: src/openapi-errors.ts, src/openapi-health.ts,
 * src/openapi-schema-rules.ts, src/openapi-security.ts, src/openapi-webhooks.ts.
 */
import { generateOpenApiDocument, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { ERROR_CODES } from './app-error.js';
import { ErrorEnvelopeSchema } from './error-mapping.js';
import { PROFILE_FIELD_TABLE } from '../db/profile-fields.js';
import { REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from './openapi-examples.js';
import { callerOf, codesFor, ERROR_EXAMPLES, errorResponse } from './openapi-errors.js';
import { HEALTH_PATHS, HEALTH_SCHEMAS } from './openapi-health.js';
import { listOperations, type JsonObject } from './openapi-operations.js';
import {
  addFieldRules,
  inputMeta,
  refusesUnknownKeys,
  requestFieldRules,
  schemaId,
  STORED_PROFILE_SCHEMAS,
  storedFieldRules,
} from './openapi-schema-rules.js';
import { securitySchemes } from './openapi-security.js';
import { webhooksOf, type WebhookEvent } from './openapi-webhooks.js';
import { listProcedures, type ProcedureInfo } from './trpc/procedures.js';

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
    securitySchemes: securitySchemes(),
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
