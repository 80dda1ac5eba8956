import type { inferRouterError, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { describe, expectTypeOf, it } from 'vitest';
// What the client package ships as its router (client/types/app-router.ts, decision 0062).
import type { AppRouter as ClientRouter, Issue } from '#app-router';
// The server's router, as the service's own code sees it.
import type { AppRouter as ServerRouter } from 'user-profile-service';
import type { Issue as ServerIssue } from '../../src/app-error.js';

/**
 * The client package's AppRouter is the server's router without its context
 * and metadata (whose declarations need the server's packages). tsc checks
 * that nothing a client reads differs: the procedures, their kinds, inputs,
 * outputs and errors. (At run time these assertions do nothing.)
 */
type Procedures<R extends ClientRouter | ServerRouter> = R['_def']['record'];
type Kinds<R extends ClientRouter | ServerRouter> = {
  [K in keyof Procedures<R>]: Procedures<R>[K] extends { _def: { type: infer T } } ? T : never;
};

describe('the client package AppRouter', () => {
  it('has every procedure of the server router, each of the same kind', () => {
    expectTypeOf<keyof Procedures<ClientRouter>>().toEqualTypeOf<keyof Procedures<ServerRouter>>();
    expectTypeOf<Kinds<ClientRouter>>().toEqualTypeOf<Kinds<ServerRouter>>();
  });

  it('has the same inputs, outputs and errors', () => {
    expectTypeOf<inferRouterInputs<ClientRouter>>().toEqualTypeOf<
      inferRouterInputs<ServerRouter>
    >();
    expectTypeOf<inferRouterOutputs<ClientRouter>>().toEqualTypeOf<
      inferRouterOutputs<ServerRouter>
    >();
    expectTypeOf<inferRouterError<ClientRouter>>().toEqualTypeOf<inferRouterError<ServerRouter>>();
    expectTypeOf<Issue>().toEqualTypeOf<ServerIssue>();
  });

  it("carries neither the server's context nor its metadata", () => {
    expectTypeOf<ClientRouter['_def']['_config']['$types']['ctx']>().toEqualTypeOf<object>();
    expectTypeOf<ClientRouter['_def']['_config']['$types']['meta']>().toEqualTypeOf<object>();
    expectTypeOf<ServerRouter['_def']['_config']['$types']['ctx']>().not.toEqualTypeOf<object>();
  });
});
