import { z } from 'zod';
import { OVERVIEW_WINDOWS, type OverviewWindow } from '../src/domain/overview.js';
import { overview } from '../src/services/admin-overview.js';
import { router, serviceProcedure } from '../src/trpc/init.js';
import { ok } from './dto.js';
import { QUERY_ERRORS } from './operation-errors.js';
import { success } from './schemas.js';

/** The game at a glance, for service tokens with the `admin` scope (the console's Overview). */

const time = z.iso.datetime().meta({ description: 'ISO-8601 timestamp in UTC' });
const count = z.int().min(0);
const WINDOWS = Object.keys(OVERVIEW_WINDOWS) as [OverviewWindow, ...OverviewWindow[]];

const OverviewSchema = z
  .object({
    window: z.enum(WINDOWS),
    from: time.meta({ description: 'The window’s start (the database’s clock)' }),
    to: time.meta({ description: 'The window’s end: now' }),
    bucketSeconds: z.int().meta({ description: 'Each bucket’s length: 60 (hour), 1800 (day)' }),
    buckets: z.array(time).meta({ description: 'Each bucket’s start, oldest first' }),
    events: z
      .array(z.object({ type: z.string(), counts: z.array(count) }))
      .meta({ description: 'Events recorded per bucket, by type (most first)' }),
    points: z
      .array(count)
      .meta({ description: 'Points the events awarded per bucket (reversed ones left out)' }),
    activeFans: count.meta({ description: 'Fans with an event recorded in the window' }),
    rejections: z
      .object({
        since: time.meta({ description: 'When the answering instance started' }),
        byCode: z.array(z.object({ code: z.string(), count })),
      })
      .meta({
        description:
          'Events the answering instance rejected since it started, by code, most first ' +
          '(ups_events_total; rejected events are not stored)',
      }),
    outboxLagSeconds: z.number().min(0).meta({
      description: 'Age of the oldest event still to be delivered to a webhook (0: none)',
    }),
    webhooks: z
      .object({
        delivered: count,
        failed: count.meta({ description: 'Attempts that failed and are tried again' }),
        gaveUp: count,
        queued: count.meta({ description: 'Deliveries waiting in the endpoints’ queues now' }),
        endpointsEnabled: count,
        endpointsDisabled: count,
      })
      .meta({
        description: 'Delivery attempts in the window by outcome; queues and endpoints now',
      }),
  })
  .meta({ id: 'AdminOverview' });

export const adminOverviewRouter = router({
  adminOverview: serviceProcedure('admin')
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/admin/overview',
        summary: 'The game at a glance',
        description:
          'Over the last hour (a bucket a minute) or day (a bucket every 30 minutes): events ' +
          'recorded per bucket by type, the points they awarded, active fans, webhook delivery ' +
          'outcomes; now: the outbox’s lag, the queues, the endpoints; and the events the ' +
          'answering instance rejected since it started, by code.',
        tags: ['admin'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    .input(
      z
        .strictObject({
          window: z
            .enum(WINDOWS)
            .default('hour')
            .meta({ description: 'hour (the default) or day' }),
        })
        .meta({ id: 'AdminOverviewInput' }),
    )
    .output(success(OverviewSchema))
    .query(async ({ ctx, input }) => {
      const o = await overview(ctx.deps, input.window);
      const iso = (d: Date) => d.toISOString();
      return ok({
        ...o,
        from: iso(o.from),
        to: iso(o.to),
        buckets: o.buckets.map(iso),
        rejections: { since: iso(o.rejections.since), byCode: o.rejections.byCode },
      });
    }),
});
