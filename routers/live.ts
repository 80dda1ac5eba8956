import { tracked } from '@trpc/server';
import type { z } from 'zod';
import { toLiveEventMessage } from '../src/live/messages.js';
import type { RankedEntry } from '../db/queries/leaderboard.js';
import { openBoardEvents, openUserEvents, type UserStreamItem } from '../src/live/streams.js';
import { toStreamError } from '../src/error-mapping.js';
import type { Principal } from '../src/auth/principal.js';
import type { Context } from '../src/trpc/context.js';
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

async function* messages(items: AsyncIterable<UserStreamItem>, userId: string) {
  try {
    for await (const item of items) {
      const message = toMessage(item, userId);
      yield tracked(message.id, message);
    }
  } catch (error) {
    throw toStreamError(error);
  }
}

type LeaderboardUpdate = z.input<typeof LeaderboardUpdateSchema>;

/**
 * The update of a board's top as `team` is spelled (a team's board is one
 * board however its streams spell it; each message names it as its stream
 * did): made once per top (src/live/boards.ts shares the array) and
 * spelling, so the streams that send it share its check and its
 * serialisation. `timestamp` is when it was first sent.
 */
const updatesOf = new WeakMap<RankedEntry[], Map<string | null, LeaderboardUpdate>>();

function toUpdate(top: RankedEntry[], team: string | undefined): LeaderboardUpdate {
  let bySpelling = updatesOf.get(top);
  if (bySpelling === undefined) {
    bySpelling = new Map();
    updatesOf.set(top, bySpelling);
  }
  let update = bySpelling.get(team ?? null);
  if (update === undefined) {
    update = Object.freeze({
      board: team === undefined ? ('global' as const) : ('team' as const),
      team: team ?? null,
      timestamp: new Date().toISOString(),
      entries: top.map(toLeaderboardEntry),
    });
    bySpelling.set(team ?? null, update);
  }
  return update;
}

async function* updates(entries: AsyncIterable<RankedEntry[]>, team: string | undefined) {
  try {
    for await (const top of entries) yield toUpdate(top, team);
  } catch (error) {
    throw toStreamError(error);
  }
}

/** The output of a board stream: each top checked once, whichever stream sends it first. */
export const LeaderboardUpdates = zIterable(LeaderboardUpdateSchema);

/**
 * A board's stream: leaderboardEvents (a fan's) and adminLeaderboardEvents
 * (an admin client's) open the same stream of the same shared tops. `owner`
 * is whom the stream is counted against (LIVE_MAX_STREAMS_PER_USER) and
 * logged for: the fan's user id, or the admin client's key.
 */
export async function boardUpdates(
  ctx: Context & { principal: Principal },
  stream: {
    owner: string;
    input: z.output<typeof LeaderboardEventsInput>;
    signal: AbortSignal | undefined;
    path: string;
  },
) {
  const { owner, input, signal, path } = stream;
  return updates(
    await openBoardEvents(ctx.deps.live.hub, ctx.deps.live.boards, {
      procedure: path,
      logger: ctx.logger,
      userId: owner,
      ip: ctx.ip,
      team: input?.team,
      top: input?.top ?? 10,
      expiresAtMs: ctx.principal.expiresAt * 1000,
      onDropped: ctx.closeConnection,
      unsentBytes: ctx.unsentBytes,
      signal,
      transport: ctx.transport === 'ws' ? 'ws' : 'sse',
    }),
    input?.team,
  );
}

/**
 * Live subscriptions over Server-Sent Events (tRPC only: GET /trpc/myEvents,
 * GET /trpc/leaderboardEvents, served by tRPC's Express adapter like every
 * other /trpc request). Authenticated like
 * every procedure, by the Authorization header or, for a browser's
 * EventSource, the `token` connection parameter. Each resolver opens its
 * stream (limits, token expiry, the user's existence) before it returns, so
 * a refusal is the procedure's error; the iterable it returns holds only
 * what the stream needs, not the request's context.
 */
export const liveRouter = router({
  myEvents: protectedProcedure
    .input(MyEventsInput)
    .output(zTrackedIterable(LiveEventSchema))
    .subscription(async ({ ctx, input, signal, path }) =>
      messages(
        await openUserEvents(ctx.deps.live.hub, ctx.deps.db, {
          procedure: path,
          logger: ctx.logger,
          userId: ctx.userId,
          ip: ctx.ip,
          lastEventId: input?.lastEventId,
          expiresAtMs: ctx.principal.expiresAt * 1000,
          onDropped: ctx.closeConnection,
          unsentBytes: ctx.unsentBytes,
          signal,
          transport: ctx.transport === 'ws' ? 'ws' : 'sse',
        }),
        ctx.userId,
      ),
    ),

  leaderboardEvents: protectedProcedure
    .input(LeaderboardEventsInput)
    .output(LeaderboardUpdates)
    .subscription(async ({ ctx, input, signal, path }) =>
      boardUpdates(ctx, { owner: ctx.userId, input, signal, path }),
    ),
});
