/**
 * GET /healthz and GET /readyz in openapi.json: their paths, schemas and
 * examples, described by hand because they are Express routes, not
 * procedures.
 */
import { ERROR_HEADERS } from './openapi-errors.js';
import type { Examples } from './openapi-examples-common.js';
import type { JsonObject } from './openapi-operations.js';

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

export const HEALTH_SCHEMAS: Record<string, JsonObject> = {
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
