import { appRouter } from '../../routers/index.js';
import { listProcedures, type ProcedureKind } from '../../src/trpc/procedures.js';

/**
 * The service's operations as the router's meta declares them (listProcedures): the one route
 * table of the tests. A helper or a test that needs an operation's method and path takes it from
 * here, so a path changed in routers/ is changed for every test at once.
 */
export interface Route {
  /** The procedure: `updateUser`, `leaderboard`, … */
  name: string;
  kind: ProcedureKind;
  /** The REST method, upper case. */
  method: string;
  /** The REST path as openapi.json writes it (`/api/admin/fans/{userId}/ban`). */
  template: string;
  /** The path with its parameters filled by `fillPath`. */
  path: string;
  /** The service scope the operation needs; undefined: a fan's operation. */
  serviceScope: string | undefined;
  /** The most body the operation reads, in KiB (meta.maxBodyKiB, else the service's 16). */
  maxBodyKiB: number;
  /** Whether the REST operation reads a JSON body. */
  hasBody: boolean;
}

/** The service's default body limit (src/http/body.ts), for operations whose meta sets none. */
export const DEFAULT_MAX_BODY_KIB = 16;

const PARAMETER_VALUES: Record<string, string> = {
  kind: 'quest',
  key: 'daily_reader',
};

/** A path template with each `{parameter}` filled: a known value, else a well-formed uuid. */
export function fillPath(template: string): string {
  return template.replace(
    /\{(\w+)\}/g,
    (_, name: string) => PARAMETER_VALUES[name] ?? '00000000-0000-4000-8000-000000000000',
  );
}

/** Every procedure of the router that has a REST operation. */
export const ROUTES: readonly Route[] = listProcedures(appRouter).flatMap((procedure) => {
  const openapi = procedure.meta?.openapi;
  if (!openapi) return [];
  const method = openapi.method.toUpperCase();
  return [
    {
      name: procedure.path,
      kind: procedure.kind,
      method,
      template: openapi.path,
      path: fillPath(openapi.path),
      serviceScope: procedure.meta?.serviceScope,
      maxBodyKiB: procedure.meta?.maxBodyKiB ?? DEFAULT_MAX_BODY_KIB,
      hasBody: method === 'POST' || method === 'PUT' || method === 'PATCH',
    },
  ];
});

/** One operation's route; throws for a name the router does not declare with a REST path. */
export function route(name: string): Route {
  const found = ROUTES.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no REST operation named ${name} in the router`);
  return found;
}

/** The methods a REST path answers (the operations declared on it, and HEAD with GET), sorted. */
export function allowedMethods(template: string): string[] {
  const methods = ROUTES.filter((candidate) => candidate.template === template).map(
    (candidate) => candidate.method,
  );
  return (methods.includes('GET') ? [...methods, 'HEAD'] : methods).sort();
}
