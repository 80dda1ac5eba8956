import { mergeRouters } from '../src/trpc/init.js';
import { adminRouter } from './admin.js';
import { adminDefinitionsRouter } from './admin-definitions.js';
import { adminDeliveriesRouter } from './admin-deliveries.js';
import { adminFansRouter } from './admin-fans.js';
import { adminLeaderboardRouter } from './admin-leaderboard.js';
import { adminOverviewRouter } from './admin-overview.js';
import { adminWebhooksRouter } from './admin-webhooks.js';
import { eventsRouter } from './events.js';
import { leaderboardRouter } from './leaderboard.js';
import { liveRouter } from './live.js';
import { userRouter } from './user.js';

/** Every procedure, flat: tRPC paths are `updateUser`, `onboardProfile`, … */
export const appRouter = mergeRouters(
  userRouter,
  leaderboardRouter,
  liveRouter,
  eventsRouter,
  adminDefinitionsRouter,
  adminRouter,
  adminFansRouter,
  adminWebhooksRouter,
  adminDeliveriesRouter,
  adminOverviewRouter,
  adminLeaderboardRouter,
);

/** The type a TypeScript client imports: `import type { AppRouter } from 'user-profile-service'`. */
export type AppRouter = typeof appRouter;

/** What openapi.json's webhooks and asyncapi.json's streams are generated from. */
export { LIVE_STREAMS, WEBHOOK_EVENTS } from './live-schemas.js';
