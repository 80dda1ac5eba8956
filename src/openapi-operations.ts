/**
 * The shape of openapi.json's operations as the document is corrected: a
 * JSON object, an operation, and every operation of a document with its path
 * and method.
 */
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { Examples } from './openapi-examples-common.js';

export type JsonObject = Record<string, unknown>;

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
