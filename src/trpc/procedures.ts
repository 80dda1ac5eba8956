import type { AnyTRPCRouter } from '@trpc/server';
import type { OperationMeta } from './init.js';

export type ProcedureKind = 'query' | 'mutation' | 'subscription';

/** One procedure of a router, as the faces and the OpenAPI builder need it. */
export interface ProcedureInfo {
  /** Its tRPC path: `updateUser`, `leaderboard`, … (the router is flat). */
  path: string;
  kind: ProcedureKind;
  meta: OperationMeta | undefined;
  /** Its zod input schema, when it declares one. */
  input: unknown;
}

interface ProcedureDef {
  _def: { type: ProcedureKind; meta?: OperationMeta; inputs: unknown[] };
}

/**
 * Every procedure of `router` with its kind and meta: the one reader of
 * tRPC's `_def.procedures`, for whatever needs to know which procedures
 * exist (the method rules of /trpc, the OpenAPI document).
 */
export function listProcedures(router: AnyTRPCRouter): ProcedureInfo[] {
  return Object.entries(router._def.procedures as Record<string, ProcedureDef>).map(
    ([path, procedure]) => ({
      path,
      kind: procedure._def.type,
      meta: procedure._def.meta,
      input: procedure._def.inputs[0],
    }),
  );
}
