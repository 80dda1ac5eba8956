import { recordEvents } from '../src/services/activity.js';
import { reverseEvent } from '../src/services/reversal.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok } from './dto.js';
import {
  RecordEventsInput,
  RecordEventsSchema,
  ReversalSchema,
  ReverseEventInput,
} from './event-schemas.js';
import { success } from './schemas.js';
import { WRITE_ERRORS } from './operation-errors.js';

/** Points from activity: other services of the fan app record events (docs/ACTIVITY.md). */
export const eventsRouter = router({
  recordEvents: serviceProcedure('events:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/events',
        summary: 'Record events from another service, exactly once each',
        description:
          'A batch of 1–100 events, each awarding its type’s points to the fan named by ' +
          '`subject` (created on first sight, not onboarded). Each event is recorded at most ' +
          'once per (client, id): sending an id again answers `duplicate` with the original ' +
          'result, or `rejected` (EVENT_ID_REUSED) if the body differs. A batch is not ' +
          'all-or-nothing: each event is, and `results` says what became of each, in order ' +
          '(unknown type, bad value, a cap reached or an occurredAt out of range reject only that ' +
          'event). The body may be up to 256 KiB.',
        tags: ['events'],
        errorResponses: [400, 401, 403, 413, 415, 429, 500, 503],
        protect: true,
      },
      // 100 events with the longest ids and subjects.
      maxBodyKiB: 256,
    })
    .input(RecordEventsInput)
    .output(success(RecordEventsSchema))
    .mutation(async ({ ctx, input }) => {
      const { issuer, clientId } = ctx.principal;
      const results = await recordEvents(ctx.deps, { issuer, clientId }, input.events);
      return ok({ results });
    }),

  reverseEvent: serviceProcedure('events:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/events/reversals',
        summary: 'Reverse one of your events',
        description:
          'Takes back what the event itself awarded with a compensating ledger entry (nothing is ' +
          'deleted): the balance, the all-time board, the fan’s team boards and the week and ' +
          'month boards the points landed on follow, unless that season is already archived. ' +
          'Quests and streak milestones it completed keep their award. Idempotent: ' +
          '`already_reversed` the second time. 404 when you recorded no event with that id.',
        tags: ['events'],
        errorResponses: [...WRITE_ERRORS, 404],
        protect: true,
      },
    })
    .input(ReverseEventInput)
    .output(success(ReversalSchema))
    .mutation(async ({ ctx, input }) => {
      const { issuer, clientId } = ctx.principal;
      const reversal = await reverseEvent(ctx.deps, { issuer, clientId }, input.id);
      return ok(reversal);
    }),
});
