import type { OpenAPIObject } from 'trpc-to-openapi';
import type { ProcedureInfo } from '../trpc/procedures.js';
import { TRPC_MOUNT } from './methods.js';
import { restPathIndex, restPathOf } from './rest-paths.js';

/** Which face a request came through: REST (trpc-to-openapi), /trpc, or the app's own routes. */
export type Face = 'rest' | 'trpc' | 'other';

export interface Operation {
  /**
   * The procedure the request calls (its tRPC path, which is also its REST
   * operationId), `batch` for a tRPC batch of several calls, the name of one of
   * the app's own routes (`healthz`, `readyz`, `openapi`, `docs`), or `unknown`.
   * Never the raw path, so metrics and logs have one value per operation.
   */
  name: string;
  face: Face;
}

/** The app's own routes (src/app.ts), by path. */
const OWN_ROUTES: ReadonlyMap<string, string> = new Map([
  ['/healthz', 'healthz'],
  ['/readyz', 'readyz'],
  ['/openapi.json', 'openapi'],
  ['/docs', 'docs'],
]);

/**
 * Names the operation of a request from its method and URL, before any face
 * has run (so a request refused early, by a limit or the method rules, is
 * counted under the operation it asked for). REST paths are matched as
 * trpc-to-openapi matches them (methods.ts does the same); /trpc's procedure is
 * the last path segment, as tRPC's adapter reads it. Only names the router
 * declares come out, so no client can invent label values.
 */
export function operationResolver(
  document: Pick<OpenAPIObject, 'paths'>,
  procedures: readonly ProcedureInfo[],
): (method: string, url: string) => Operation {
  const rest = restPathIndex(document);
  const known = new Set(procedures.map(({ path }) => path));
  const unknown = (face: Face): Operation => ({ name: 'unknown', face });

  const trpc = (url: string): Operation => {
    const [path = '', query = ''] = url.split('?', 2);
    let segment: string;
    try {
      segment = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
    } catch {
      return unknown('trpc');
    }
    const names = new URLSearchParams(query).get('batch') === '1' ? segment.split(',') : [segment];
    if (!names.every((name) => known.has(name))) return unknown('trpc');
    return { name: names.length === 1 ? names[0]! : 'batch', face: 'trpc' };
  };

  return (method, url) => {
    const mount = url.slice(0, TRPC_MOUNT.length + 1).toLowerCase();
    if (mount === `${TRPC_MOUNT}/` || mount === TRPC_MOUNT || mount === `${TRPC_MOUNT}?`) {
      return trpc(url.slice(TRPC_MOUNT.length));
    }
    let path: string;
    try {
      path = restPathOf(url);
    } catch {
      return unknown('other');
    }
    const own = OWN_ROUTES.get(path) ?? (path.startsWith('/docs/') ? 'docs' : undefined);
    if (own !== undefined) return { name: own, face: 'other' };
    for (const { operations } of rest(path)) {
      const name = operations.get(method);
      if (name !== undefined) return { name, face: 'rest' };
    }
    return unknown('rest');
  };
}
