/**
 * `AppRouter` as a client sees it, for the client package's declarations
 * (decision 0062). A tRPC client reads a router's procedures (their kind,
 * input, output and error shape), its error shape and whether it has a
 * transformer; nothing else. The server's router type also carries its
 * context (the database, express, the logger, ...) and the procedures'
 * OpenAPI metadata, whose declarations would need kysely, express, pino,
 * zod and trpc-to-openapi in every consumer. This view keeps what clients
 * read and puts `object` where the server's context and metadata were.
 *
 * Only types: tsconfig.types.json emits this file's declarations and the
 * client build bundles them (client/rollup.config.mjs); nothing runs it.
 */
import type {
  AnyTRPCRouter,
  TRPCBuiltRouter,
  TRPCMutationProcedure,
  TRPCQueryProcedure,
  TRPCSubscriptionProcedure,
} from '@trpc/server';
import type { appRouter } from '../../routers/index.js';

/** One procedure without the server's metadata; a sub-router, recursively. */
type ClientProcedure<P> =
  P extends TRPCQueryProcedure<infer D>
    ? TRPCQueryProcedure<{
        input: D['input'];
        output: D['output'];
        meta: object;
        errorShape: D['errorShape'];
      }>
    : P extends TRPCMutationProcedure<infer D>
      ? TRPCMutationProcedure<{
          input: D['input'];
          output: D['output'];
          meta: object;
          errorShape: D['errorShape'];
        }>
      : P extends TRPCSubscriptionProcedure<infer D>
        ? TRPCSubscriptionProcedure<{
            input: D['input'];
            output: D['output'];
            meta: object;
            errorShape: D['errorShape'];
          }>
        : { [K in keyof P]: ClientProcedure<P[K]> };

/*
 * The view's type is written out in the signature, not as an alias, so tsc
 * prints it expanded into the declaration instead of naming the server's types.
 */
declare function clientView<R extends AnyTRPCRouter>(
  router: R,
): TRPCBuiltRouter<
  {
    ctx: object;
    meta: object;
    errorShape: R['_def']['_config']['$types']['errorShape'];
    transformer: R['_def']['_config']['$types']['transformer'];
  },
  { [K in keyof R['_def']['record']]: ClientProcedure<R['_def']['record'][K]> }
>;
declare const server: typeof appRouter;
const clientRouter = clientView(server);

/** The type a TypeScript client imports: every procedure, its input, output and errors. */
export type AppRouter = typeof clientRouter;
/** One problem of a VALIDATION_FAILED error (`error.data.issues`): the field's path and what is wrong. */
export type { Issue } from '../../src/app-error.js';
