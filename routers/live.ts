import { tracked } from '@trpc/server';
import type { z } from 'zod';
import { toLiveEventMessage } from '../src/live/messages.js';
import { boardEvents, userEvents, type UserStreamItem } from '../src/live/streams.js';
import { protectedProcedure, router } from '../src/trpc/init.js';
import { toLeaderboardEntry } from './dto.js';
import {
  LeaderboardEventsInput,
  LeaderboardUpdateSchema,
  LiveEventSchema,
  MyEventsInput,
  zIterable,
  zTrackedIterable,
} from './live-schemas.js';

type LiveEventMessage = z.input<typeof LiveEventSchema>;

const RESYNC_REASON =
  'Events after your lastEventId are no longer retained (or it is not one of yours): reload ' +
  'your state from the read APIs, then continue from this event id';

function toMessage(item: UserStreamItem, userId: string): LiveEventMessage {
  // The outbox payload is the type's data; the output schema checks it on the way out.
  if (item.kind === 'event') return toLiveEventMessage(item.event) as LiveEventMessage;
  return {
    id: item.id,
    type: 'resync',
    timestamp: new Date().toISOString(),
    userId,
    data: { reason: RESYNC_REASON },
  };
}

/**
 * Live subscriptions over Server-Sent Events (tRPC only: GET /trpc/myEvents,
 * GET /trpc/leaderboardEvents). Authenticated like every procedure, by the
 * Authorization header or, for a browser's EventSource, the `token`
 * connection parameter.
 */
export const liveRouter = router({
  myEvents: protectedProcedure
    .input(MyEventsInput)
    .output(zTrackedIterable(LiveEventSchema))
    .subscription(async function* ({ ctx, input, signal }) {
      const items = userEvents(ctx.deps.live.hub, ctx.deps.db, {
        userId: ctx.userId,
        lastEventId: input?.lastEventId,
        expiresAtMs: ctx.principal.expiresAt * 1000,
        onDropped: ctx.closeConnection,
        signal,
      });
      for await (const item of items) {
        const message = toMessage(item, ctx.userId);
        yield tracked(message.id, message);
      }
    }),

  leaderboardEvents: protectedProcedure
    .input(LeaderboardEventsInput)
    .output(zIterable(LeaderboardUpdateSchema))
    .subscription(async function* ({ ctx, input, signal }) {
      const team = input?.team;
      const updates = boardEvents(ctx.deps.live.hub, ctx.deps.live.boards, {
        userId: ctx.userId,
        team,
        top: input?.top ?? 10,
        expiresAtMs: ctx.principal.expiresAt * 1000,
        onDropped: ctx.closeConnection,
        signal,
      });
      for await (const entries of updates) {
        yield {
          board: team === undefined ? ('global' as const) : ('team' as const),
          team: team ?? null,
          timestamp: new Date().toISOString(),
          entries: entries.map(toLeaderboardEntry),
        };
      }
    }),
});
