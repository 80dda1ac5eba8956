// Planted: tRPC's internals (no-trpc-internals).
import type { AnyProcedure } from '@trpc/server/unstable-core-do-not-import';

export type Logged = { procedure: AnyProcedure };
