import type { Server } from 'node:http';
import type { RequestHandler } from 'express';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { AppError } from '../app-error.js';
import type { ProcedureInfo, ProcedureKind } from '../trpc/procedures.js';
import { writeErrorToSocket } from './client-error.js';
import { restPathIndex, restPathOf } from './rest-paths.js';

/** Where the app mounts tRPC's handler. */
export const TRPC_MOUNT = '/trpc';

/** The methods tRPC's adapter serves each kind of procedure with. */
const TRPC_METHODS: Record<ProcedureKind, readonly string[]> = {
  query: ['GET', 'HEAD'],
  mutation: ['POST'],
  // Not HEAD: the GET of a subscription is a stream that never ends.
  subscription: ['GET'],
};

/** What the method rules refuse a request with, or undefined when a face may answer it. */
export type MethodRule = (method: string, url: string) => AppError | undefined;

/**
 * The methods each path answers, for both faces: a REST path of the OpenAPI
 * document (matched as trpc-to-openapi matches it: its own `normalizePath`
 * and `getPathRegExp`) answers the methods it documents, and HEAD where it
 * documents GET; `/trpc/<procedure>` answers what tRPC serves that kind of
 * procedure with (TRPC_METHODS). Any other method is 405
 * METHOD_NOT_ALLOWED with `Allow`. GET and POST on /trpc are left to tRPC,
 * which answers them in its own shape; any other method there is refused
 * here, because tRPC's adapter cannot even read it (undici's `Request`
 * refuses TRACE and CONNECT), and an unknown procedure (or a path that is
 * not valid URL-encoding) with such a method is a 404. Unknown REST paths
 * are left to the adapter (404).
 */
export function methodRule(
  document: Pick<OpenAPIObject, 'paths'>,
  procedures: readonly ProcedureInfo[],
): MethodRule {
  const restPaths = restPathIndex(document);
  const kinds = new Map(procedures.map(({ path, kind }) => [path, kind]));

  const rest = (method: string, url: string) => {
    const path = restPathOf(url);
    const allow = new Set(restPaths(path).flatMap(({ methods }) => methods));
    return allow.size === 0 || allow.has(method)
      ? undefined
      : notAllowed(method, path, [...allow].sort());
  };

  const trpc = (method: string, url: string) => {
    if (method === 'GET' || method === 'POST') return undefined;
    const [path = '', query = ''] = url.split('?', 2);
    // As tRPC's Express adapter finds the procedures: the last path segment,
    // URL-decoded, a comma-separated list in a batch.
    const batch = new URLSearchParams(query).get('batch') === '1';
    let procedureNames: string[];
    try {
      const segment = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
      procedureNames = batch ? segment.split(',') : [segment];
    } catch {
      return new AppError('NOT_FOUND', 'No such operation: the path is not valid URL-encoding');
    }
    const procedureKinds = procedureNames.map((name) => kinds.get(name));
    // HEAD is tRPC's, as the GET it stands for, unless that GET opens a stream
    // (a batch cannot: tRPC refuses it, as it does the GET).
    if (method === 'HEAD' && (batch || !procedureKinds.includes('subscription'))) return undefined;
    if (procedureKinds.some((kind) => kind === undefined)) {
      return new AppError('NOT_FOUND', `No such operation: ${procedureNames.join(', ')}`);
    }
    // A batch answers only what every one of its calls does.
    const allow = TRPC_METHODS.query
      .concat(TRPC_METHODS.mutation)
      .filter((allowed) => procedureKinds.every((kind) => TRPC_METHODS[kind!].includes(allowed)));
    return notAllowed(method, `${TRPC_MOUNT}/${procedureNames.join(',')}`, allow);
  };

  return (method, url) => {
    const mount = url.slice(0, TRPC_MOUNT.length + 1).toLowerCase();
    // Express mounts are case-insensitive: /TRPC/me is tRPC's too.
    return mount === `${TRPC_MOUNT}/` || mount === TRPC_MOUNT || mount === `${TRPC_MOUNT}?`
      ? trpc(method, url.slice(TRPC_MOUNT.length))
      : rest(method, url);
  };
}

function notAllowed(method: string, path: string, allow: string[]): AppError {
  const use = allow.length > 1 ? `${allow.slice(0, -1).join(', ')} or ${allow.at(-1)}` : allow[0];
  const hint = use ? `use ${use}` : 'no method serves these calls in one batch';
  return new AppError('METHOD_NOT_ALLOWED', `${method} is not supported on ${path}: ${hint}`, {
    allow,
  });
}

/**
 * First in front of both faces, before a token is looked at, a rate limit
 * counted or a body read: a method the path does not answer is refused
 * (methodRule). Then HEAD is routed as GET, so it answers exactly as GET
 * would, without the body (RFC 9110 §9.3.2): the adapters would otherwise
 * answer any HEAD with an empty 204. Node sends no body for a response to
 * HEAD whatever the handler writes.
 */
export function methodGuard(rule: MethodRule): RequestHandler {
  return (req, _res, next) => {
    const refused = rule(req.method, req.url);
    if (refused) {
      next(refused);
      return;
    }
    if (req.method === 'HEAD') req.method = 'GET';
    next();
  };
}

/**
 * Node hands a CONNECT request to the server's 'connect' listeners, never to
 * the app, and without one drops the connection unanswered. Answer it as the
 * app would answer the method: 405 with `Allow` on a known path (CONNECT is
 * allowed nowhere), else 404, in the envelope; then close.
 */
export function refuseConnect(server: Server, rule: MethodRule): void {
  server.on('connect', (req, socket) => {
    const url = req.url ?? '/';
    writeErrorToSocket(
      socket,
      rule('CONNECT', url) ?? new AppError('NOT_FOUND', 'No such operation'),
    );
  });
}
