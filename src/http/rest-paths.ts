import { getPathRegExp, normalizePath, type OpenAPIObject } from 'trpc-to-openapi';
import { HTTP_METHODS } from '../openapi-operations.js';

/** One path of the OpenAPI document: the methods it documents and their operationIds. */
export interface RestPath {
  /** As the document writes it: `/api/admin/fans/{userId}`. */
  template: string;
  /** Upper case, HEAD included where GET is documented. */
  methods: readonly string[];
  /** Method → operationId (HEAD → GET's). */
  operations: ReadonlyMap<string, string>;
}

/**
 * The document's REST paths, matched as trpc-to-openapi matches a request
 * path (its own `normalizePath` and `getPathRegExp`), for the method rules
 * (methods.ts) and the operation names (operations.ts). `match` returns
 * every documented path the request path matches, in the document's order.
 * A request to a documented path without parameters (PATCH /api/user) is
 * answered from a map made once, with the answer the patterns give (they
 * match in any letter case, so the map does too); only other paths are
 * tested, against the patterns with parameters.
 */
export function restPathIndex(
  document: Pick<OpenAPIObject, 'paths'>,
): (path: string) => readonly RestPath[] {
  const all = Object.entries(document.paths ?? {}).map(([template, item]) => {
    const operations = new Map<string, string>();
    const methods: string[] = [];
    for (const [method, operation] of Object.entries(item as Record<string, unknown>)) {
      if (!HTTP_METHODS.includes(method)) continue;
      methods.push(method.toUpperCase());
      const id = (operation as { operationId?: unknown } | undefined)?.operationId;
      if (typeof id === 'string') operations.set(method.toUpperCase(), id);
    }
    if (methods.includes('GET')) methods.push('HEAD');
    const get = operations.get('GET');
    if (get !== undefined) operations.set('HEAD', get);
    const normalized = normalizePath(template);
    return {
      normalized,
      pattern: getPathRegExp(normalized),
      path: { template, methods, operations },
    };
  });
  const scan = (candidates: typeof all, path: string) =>
    candidates.filter(({ pattern }) => pattern.test(path)).map(({ path: found }) => found);
  // A path of letters, digits, `_`, `-` and `/` only: its pattern matches exactly that path in any letter case.
  const isLiteral = (normalized: string) => /^[\w/-]+$/.test(normalized);
  const patterned = all.filter(({ normalized }) => !isLiteral(normalized));
  const literal = new Map(
    all
      .filter(({ normalized }) => isLiteral(normalized))
      .map(({ normalized }) => [normalized.toLowerCase(), scan(all, normalized)]),
  );
  return (path) => literal.get(path.toLowerCase()) ?? scan(patterned, path);
}

/** A request URL's path as trpc-to-openapi reads it. */
export function restPathOf(url: string): string {
  return normalizePath(new URL(`http://localhost${url}`).pathname);
}
