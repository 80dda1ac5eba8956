/**
 * Run by `npm run consumer:check` with Node, compiled from this project
 * (tsconfig.run.json), against a service the check starts: a query, a
 * subscription and the mutation whose events it must receive, all through
 * the packed client package. Node has no global EventSource: the client
 * brings its own (the `eventsource` package).
 */
import { createClient } from 'user-profile-service-client';

// This project has no @types/node: the two globals it uses.
declare const process: { env: Record<string, string | undefined>; exitCode: number | undefined };

const url = process.env.SERVICE_URL;
const token = process.env.SERVICE_TOKEN;
if (!url || !token) throw new Error('SERVICE_URL and SERVICE_TOKEN are required');

const api = createClient({ url, token: () => token });

const { data: before } = await api.me.query();
if (before.onboardedAt !== null) throw new Error('expected a new user');

const received: string[] = [];
const awarded = new Promise<void>((resolve, reject) => {
  const timer = setTimeout(
    () => reject(new Error(`no points_awarded within 20 s: ${received.join(', ')}`)),
    20_000,
  );
  const subscription = api.myEvents.subscribe(undefined, {
    onStarted() {
      // The stream is open (give the server a moment to attach it): now cause events.
      setTimeout(() => {
        api.onboardProfile
          .mutate({ name: 'Consumer', favoriteTeam: 'Arsenal' })
          .catch((error: unknown) => reject(error));
      }, 500);
    },
    onData({ data: event }) {
      received.push(event.type);
      if (event.type === 'points_awarded') {
        clearTimeout(timer);
        subscription.unsubscribe();
        resolve();
      }
    },
    onError(error) {
      clearTimeout(timer);
      reject(error);
    },
  });
});
await awarded;

const { data: after } = await api.me.query();
console.log(
  JSON.stringify({ pointsBefore: before.points, pointsAfter: after.points, events: received }),
);
if (after.points <= before.points) throw new Error('the onboarding awarded no points');
process.exitCode = 0;
