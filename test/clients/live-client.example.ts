import { createClient } from 'user-profile-service-client';

/** Calls `onEvent` with each of the signed-in user's events as it commits; returns `stop`. */
export function watchMyEvents(
  baseUrl: string,
  token: string,
  onEvent: (event: { id: string; type: string; data: unknown }) => void,
  lastEventId?: string,
) {
  // Server-Sent Events through the `eventsource` package (Node 20 and 22 have no global
  // EventSource); the token goes as a connection parameter, and a dropped stream resumes
  // from its last event id by itself.
  const api = createClient({ url: baseUrl, token });
  const subscription = api.myEvents.subscribe(lastEventId ? { lastEventId } : undefined, {
    onData: ({ data }) => onEvent(data),
    onError: (error) => console.error(error.data?.errorCode, error.message),
  });
  return () => subscription.unsubscribe();
}
