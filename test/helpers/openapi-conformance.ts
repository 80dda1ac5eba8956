import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { OPENAPI_PATH } from '../../scripts/openapi.js';
import { listOperations } from '../../src/openapi-operations.js';

/** What the checker concluded about one response. */
export type Conformance =
  { checked: true; operation: string; errors: string[] } | { checked: false; reason: string };

interface ResponseObject {
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, { required?: boolean }>;
}

const DOCUMENT_ID = 'https://service.invalid/openapi.json';
// Top-level OpenAPI fields and the OpenAPI-only schema keywords: known to
// ajv (so strict mode still catches typos elsewhere), never validated.
const OPENAPI_KEYWORDS = [
  'openapi',
  'info',
  'servers',
  'paths',
  'components',
  'tags',
  'security',
  'webhooks',
  'jsonSchemaDialect',
  'externalDocs',
  'example',
  'discriminator',
  'xml',
];

function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Checks responses against an OpenAPI 3.1 document: the operation is found
 * by method and path template, the status must be documented, documented
 * required headers must be present, and a JSON body must match the schema
 * the document gives for that status (ajv, JSON Schema 2020-12, formats).
 * Only a request no operation describes is left unchecked, and says so.
 */
export function createResponseChecker(document: OpenAPIObject) {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  formatsPlugin.default(ajv);
  ajv.addVocabulary(OPENAPI_KEYWORDS);
  ajv.addSchema(document as object, DOCUMENT_ID);

  const operations = listOperations(document).map(({ path, method, operation }) => ({
    path,
    method,
    operation: operation as { operationId?: string; responses?: Record<string, ResponseObject> },
    pattern: new RegExp(
      `^${path
        .split(/\{[^}]+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]+')}$`,
    ),
  }));
  const validators = new Map<string, ValidateFunction>();

  function validatorFor(pointer: string): ValidateFunction {
    let validate = validators.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      validators.set(pointer, validate);
    }
    return validate;
  }

  return {
    check(response: {
      method: string;
      url: string;
      status: number;
      headers: Headers;
      text: string;
    }): Conformance {
      const method = response.method.toLowerCase();
      const pathname = new URL(response.url, 'http://service.invalid').pathname;
      const match = operations.find((op) => op.method === method && op.pattern.test(pathname));
      if (!match) {
        return {
          checked: false,
          reason: `openapi.json has no operation for ${method.toUpperCase()} ${pathname}`,
        };
      }
      const name = match.operation.operationId ?? `${method.toUpperCase()} ${match.path}`;
      const responses = match.operation.responses ?? {};
      const status = String(response.status);
      const key = [status, `${status[0]}XX`, 'default'].find((k) => responses[k]);
      if (!key) {
        return {
          checked: true,
          operation: name,
          errors: [`status ${status} is not documented for ${name}`],
        };
      }
      const documented = responses[key] ?? {};
      const errors: string[] = [];
      for (const [header, definition] of Object.entries(documented.headers ?? {})) {
        if (definition.required && !response.headers.has(header)) {
          errors.push(`required header ${header} is missing`);
        }
      }
      const media = Object.keys(documented.content ?? {});
      if (media.length === 0) {
        if (response.text !== '') errors.push(`${status} documents no body but one was sent`);
        return { checked: true, operation: name, errors };
      }
      const contentType = response.headers.get('content-type')?.split(';', 1)[0]?.trim() ?? '';
      if (!media.includes(contentType)) {
        errors.push(`content-type "${contentType}" is not one of ${media.join(', ')}`);
        return { checked: true, operation: name, errors };
      }
      let body: unknown;
      try {
        body = JSON.parse(response.text);
      } catch {
        errors.push('the body is not JSON');
        return { checked: true, operation: name, errors };
      }
      const pointer = ['paths', match.path, method, 'responses', key, 'content', contentType]
        .map(escapePointer)
        .join('/');
      const validate = validatorFor(`/${pointer}/schema`);
      if (!validate(body)) {
        errors.push(
          ...(validate.errors ?? []).map(
            (error) =>
              `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
          ),
        );
      }
      return { checked: true, operation: name, errors };
    },
  };
}

let committedChecker: ReturnType<typeof createResponseChecker> | undefined;

/**
 * Throws when a response does not match the committed openapi.json: every
 * response test-app.ts `request()` receives goes through here.
 */
export function assertResponseConforms(
  response: Parameters<ReturnType<typeof createResponseChecker>['check']>[0],
): Conformance {
  committedChecker ??= createResponseChecker(
    JSON.parse(readFileSync(OPENAPI_PATH, 'utf8')) as OpenAPIObject,
  );
  const result = committedChecker.check(response);
  if (result.checked && result.errors.length > 0) {
    throw new Error(
      `${response.method} ${response.url} answered ${response.status}, which does not match ` +
        `openapi.json (${result.operation}):\n  ${result.errors.join('\n  ')}\n` +
        `body: ${response.text.slice(0, 2000)}`,
    );
  }
  return result;
}
