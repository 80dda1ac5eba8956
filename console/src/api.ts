import { QueryCache, QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../routers/index.js';

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;

/** The signed-in operator's token: in memory only (auth.ts). */
let token: string | undefined;
export function setToken(value: string | undefined): void {
  token = value;
}

/** The typed tRPC client of the service's AppRouter, on this origin's /trpc. */
export const api = createTRPCClient<AppRouter>({
  links: [
    httpLink({
      url: '/trpc',
      headers: () => (token ? { authorization: `Bearer ${token}` } : {}),
    }),
  ],
});

/** What the contract's error envelope says, for showing to the operator. */
export function describeError(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const data = error.data as { errorCode?: string } | undefined;
    return data?.errorCode ? `${data.errorCode}: ${error.message}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

export function isForbidden(error: unknown): boolean {
  return error instanceof TRPCClientError && error.data?.code === 'FORBIDDEN';
}

export function createQueryClient(onForbidden: () => void): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (isForbidden(error)) onForbidden();
      },
    }),
    defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
  });
}
