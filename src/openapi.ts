import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from '../routers/index.js';
import { ErrorEnvelopeSchema } from '../routers/schemas.js';
import { ERROR_TABLE } from './error-mapping.js';
import { ERROR_CODES, type ErrorCode } from './errors.js';

export const API_VERSION = '1.0.0';

type Operation = {
  operationId?: string;
  responses?: Record<string, { description?: string; content?: unknown; headers?: unknown }>;
};

const ERROR_HEADERS: Partial<Record<number, Record<string, unknown>>> = {
  401: {
    'WWW-Authenticate': {
      description: 'Bearer error="invalid_token" (RFC 6750)',
      schema: { type: 'string' },
    },
  },
  429: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  },
  503: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
  },
};

/** Which contract codes answer with a status, for the response descriptions. */
function codesFor(status: number): ErrorCode[] {
  return ERROR_CODES.filter((code) => ERROR_TABLE[code].status === status);
}

/** Operations that answer 201 the first time (the adapter can only document 200). */
const CREATED_OPERATIONS: Record<string, string> = {
  onboardProfile: 'Onboarded by this call: quests synced and points awarded',
};

/**
 * The OpenAPI document: generated from the routers by trpc-to-openapi, then
 * corrected where the adapter describes something the service does not do —
 * every error response carries our envelope instead of the adapter's own
 * error schema, and onboarding documents its 201.
 */
export function buildOpenApiDocument(): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'User Profile Service',
    version: API_VERSION,
    description:
      'Profiles, quests, a points ledger and a leaderboard for a sports-fan app. Every ' +
      'operation is also a tRPC procedure at /trpc. Errors use one envelope: ' +
      '`{ "success": false, "error": { "code", "message", "issues"? } }`.',
    baseUrl: '/',
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    },
    defs: { ErrorEnvelope: ErrorEnvelopeSchema },
  });

  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(pathItem as Record<string, Operation>)) {
      const responses = operation.responses ?? {};
      for (const [status, response] of Object.entries(responses)) {
        const code = Number(status);
        if (code < 400) continue;
        responses[status] = {
          description: `${codesFor(code).join(' or ')}: ${response.description ?? ''}`.trim(),
          ...(ERROR_HEADERS[code] ? { headers: ERROR_HEADERS[code] } : {}),
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
          },
        };
      }
      const created = operation.operationId && CREATED_OPERATIONS[operation.operationId];
      if (created && responses['200']) {
        responses['201'] = { ...responses['200'], description: created };
      }
      operation.responses = Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
      );
    }
  }
  return document;
}
