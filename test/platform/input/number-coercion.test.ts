import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { RecordEventsInput } from '../../../routers/event-schemas.js';
import { PointsHistoryInput } from '../../../routers/points-schemas.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * A number in a body is a JSON number, on both faces, whatever the instance
 * served before (issue 42, item 2). trpc-to-openapi switched coercion on
 * inside the shared zod schemas on its first REST call, for the whole
 * process: REST bodies took "0x10", [3], true and " 7 " as numbers, and /trpc
 * turned lenient after the first REST request. patches/trpc-to-openapi+*.patch
 * coerces only the query's and the path's strings, without touching any
 * schema (docs/upstream/trpc-to-openapi-coercion.md).
 *
 * The first test must stay the first request of this file: vitest gives each
 * file a fresh module graph, so it sees the schemas as no REST call has left
 * them.
 */

const { app } = useTestApp();

/** Every value a JSON body may hold where a number belongs, and that is not one. */
const NOT_NUMBERS: unknown[] = ['5', '0x10', ' 7 ', '', [3], true, false, null, {}];

type Answer = { status: number; code: string; issues: { path: string; message: string }[] };

async function restEvents(token: string, events: unknown[]): Promise<Answer & { body: any }> {
  const response = await app.request('POST', '/api/events', { token, body: { events } });
  return {
    status: response.status,
    code: response.body.error?.code,
    issues: response.body.error?.issues,
    body: response.body,
  };
}

/** A tRPC mutation's refusal in the same shape (the typed client would not send these inputs). */
async function trpcRefusal(call: () => Promise<unknown>): Promise<Answer> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as { httpStatus: number; errorCode: string; issues: Answer['issues'] };
    return { status: data.httpStatus, code: data.errorCode, issues: data.issues };
  }
  throw new Error('the call succeeded');
}

function expectNumberRefused(answer: Answer, path: string, value: unknown) {
  const label = `${path} = ${JSON.stringify(value)}`;
  expect(answer.status, label).toBe(400);
  expect(answer.code, label).toBe('VALIDATION_FAILED');
  expect(answer.issues, label).toEqual([
    { path, message: expect.stringMatching(/expected number/) },
  ]);
}

function event(subject: string, id: string, value: unknown) {
  return { id, subject, type: 'article_read', value };
}

describe('numbers in a body are JSON numbers, on both faces, whatever was served before', () => {
  it('tRPC recordEvents refuses "5" on a fresh instance, and still after a REST call', async () => {
    const service = await app.serviceToken('coercion-service');
    const trpc = app.trpc(service);
    const subject = uniqueSubject('fan');
    const recordFive = () =>
      trpc.recordEvents.mutate({ events: [event(subject, `${subject}-t`, '5')] } as never);

    expectNumberRefused(await trpcRefusal(recordFive), 'events.0.value', '5');
    // One REST call to /api/events: this is what switched coercion on for the process.
    const rest = await restEvents(service, [event(subject, `${subject}-r`, 2)]);
    expect(rest.status).toBe(200);
    expect(rest.body.data.results[0]).toMatchObject({ status: 'recorded', points: 2 });
    expectNumberRefused(await trpcRefusal(recordFive), 'events.0.value', '5');
    // The shared schema itself was left as it was.
    expect(
      RecordEventsInput.safeParse({ events: [event(subject, `${subject}-s`, '5')] }).success,
    ).toBe(false);
  });

  it('refuses every value that is not a JSON number in an event, on both faces, recording nothing', async () => {
    const service = await app.serviceToken('coercion-service');
    const trpc = app.trpc(service);
    const subject = uniqueSubject('fan');
    for (const [index, value] of NOT_NUMBERS.entries()) {
      const id = `${subject}-${index}`;
      expectNumberRefused(
        await restEvents(service, [event(subject, id, value)]),
        'events.0.value',
        value,
      );
      expectNumberRefused(
        await trpcRefusal(() =>
          trpc.recordEvents.mutate({ events: [event(subject, id, value)] } as never),
        ),
        'events.0.value',
        value,
      );
    }
    // Nothing was recorded under those ids: each is new now, and the fan's balance is what they award.
    const accepted = await restEvents(
      service,
      NOT_NUMBERS.map((_, index) => event(subject, `${subject}-${index}`, 1)),
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.results.map((r: any) => r.status)).toEqual(
      NOT_NUMBERS.map(() => 'recorded'),
    );
    expect(accepted.body.data.results[0].balance).toBe(1);
  });

  it('refuses an adjustment whose points are not a JSON number, null with a message that says so', async () => {
    const admin = await app.serviceToken('ops-console', 'admin');
    const fanToken = await app.token();
    const onboarding = await app.request('POST', '/api/user/profile', {
      token: fanToken,
      body: {},
    });
    expect(onboarding.status).toBe(201);
    const { id: userId, points: before } = onboarding.body.data.user;
    const trpc = app.trpc(admin);
    for (const [index, points] of NOT_NUMBERS.entries()) {
      const body = { id: `coerce-${index}`, points, reason: 'Typo' };
      const rest = await app.request('POST', `/api/admin/fans/${userId}/adjustments`, {
        token: admin,
        body,
      });
      expectNumberRefused(
        { status: rest.status, code: rest.body.error?.code, issues: rest.body.error?.issues },
        'points',
        points,
      );
      expectNumberRefused(
        await trpcRefusal(() => trpc.adminAdjustPoints.mutate({ userId, ...body } as never)),
        'points',
        points,
      );
    }
    const me = await app.request('GET', '/api/user', { token: fanToken });
    expect(me.body.data.points).toBe(before);
  });
});

describe('query parameters are still read as the numbers they stand for', () => {
  it('reads ?limit= and ?radius= as numbers, refuses a limit that is not one, and leaves the schema strict', async () => {
    const token = await app.token();
    // Two ledger entries: the welcome and pick_team quests.
    const onboarding = await app.request('POST', '/api/user/profile', {
      token,
      body: { favoriteTeam: 'Arsenal' },
    });
    expect(onboarding.status).toBe(201);
    const page = await app.request('GET', '/api/user/points?limit=1', { token });
    expect(page.status, page.text).toBe(200);
    expect(page.body.data.entries).toHaveLength(1);
    expect(page.body.data.nextCursor).toEqual(expect.any(String));
    const around = await app.request('GET', '/api/leaderboard/me?radius=0', { token });
    expect(around.status, around.text).toBe(200);
    expect(around.body.data.above).toEqual([]);
    expect(around.body.data.below).toEqual([]);
    const bad = await app.request('GET', '/api/user/points?limit=many', { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('limit');

    // The query was coerced, not the schema: a string limit is still refused in a tRPC input.
    expect(PointsHistoryInput.safeParse({ limit: '1' }).success).toBe(false);
    const refused = await trpcRefusal(() =>
      app.trpc(token).pointsHistory.query({ limit: '1' } as never),
    );
    expectNumberRefused(refused, 'limit', '1');
  });
});
