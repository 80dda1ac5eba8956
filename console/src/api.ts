import { QueryCache, QueryClient } from '@tanstack/react-query';
import {
  createTRPCClient,
  httpLink,
  httpSubscriptionLink,
  splitLink,
  TRPCClientError,
} from '@trpc/client';
import { EventSource } from 'eventsource';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '../../routers/index.js';

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;

/** The signed-in operator's token: in memory only (auth.ts). */
let token: string | undefined;
export function setToken(value: string | undefined): void {
  token = value;
}

const authorization = (): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

/**
 * The typed tRPC client of the service's AppRouter, on this origin's /trpc: subscriptions over
 * Server-Sent Events. The browser's EventSource cannot send the Authorization header, so
 * `eventsource` (an EventSource over fetch) sends it: the token never goes in a URL.
 */
export const api = createTRPCClient<AppRouter>({
  links: [
    splitLink({
      condition: (op) => op.type === 'subscription',
      true: httpSubscriptionLink({
        url: '/trpc',
        EventSource,
        eventSourceOptions: () => ({
          fetch: (input: string | URL, init?: RequestInit) =>
            fetch(input, { ...init, headers: { ...init?.headers, ...authorization() } }),
        }),
      }),
      false: httpLink({ url: '/trpc', headers: authorization }),
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
