import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import type { AppRouter } from 'user-profile-service';

/** Calls `onEvent` with each of the signed-in user's events as it commits; returns `stop`. */
export function watchMyEvents(
  baseUrl: string,
  token: string,
  onEvent: (event: { id: string; type: string; data: unknown }) => void,
  lastEventId?: string,
) {
  const api = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        // Server-Sent Events; a browser's EventSource cannot set headers, so the token
        // goes as a connection parameter. Reconnects resume from the last event id.
        true: httpSubscriptionLink({ url: `${baseUrl}/trpc`, connectionParams: { token } }),
        false: httpLink({ url: `${baseUrl}/trpc`, headers: { authorization: `Bearer ${token}` } }),
      }),
    ],
  });
  const subscription = api.myEvents.subscribe(lastEventId ? { lastEventId } : undefined, {
    onData: ({ data }) => onEvent(data),
    onError: (error) => console.error(error.data?.errorCode, error.message),
  });
  return () => subscription.unsubscribe();
}
