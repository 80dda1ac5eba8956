/**
 * A neighbouring project's view of the service: the client package
 * (`user-profile-service-client`, installed from its `npm pack` tarball) and
 * its peer `@trpc/server`, `typescript`, a stock strict tsconfig.
 * `npm run consumer:check` in the service type-checks this file (live.ts is
 * the part it runs).
 *
 * One function per procedure, each calling it through `api.<procedure>` and
 * checking the output type. The check fails when a procedure of `appRouter`
 * has no `api.<procedure>` call here, so a new procedure gets a function too.
 */
import {
  createClient,
  TRPCClientError,
  type AppRouter,
  type RouterInputs as Inputs,
  type RouterOutputs as Outputs,
} from 'user-profile-service-client';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type IsAny<T> = 0 extends 1 & T ? true : false;
/** Compiles only when its argument is `true`. */
function assertType<T extends true>(): T | void {}

// If the declarations degrade to `any`, every check below fails: this one directly,
// and each `@ts-expect-error` because the error it expects is gone.
assertType<Equal<IsAny<AppRouter>, false>>();
assertType<Equal<IsAny<Outputs['me']>, false>>();

const api = createClient({ url: 'http://localhost:3000', token: '<token>' });

export async function updateUser() {
  const { data: user } = await api.updateUser.mutate({
    handle: '@alice',
    favoriteTeam: 'Arsenal',
    rivalTeam: null,
  });
  assertType<Equal<typeof user.id, string>>();
  assertType<Equal<typeof user.handle, string | null>>();
  assertType<Equal<typeof user.points, number>>();
  assertType<Equal<typeof user.onboardedAt, string | null>>();
  // @ts-expect-error unknown fields are refused, so a typo never silently does nothing
  await api.updateUser.mutate({ favouriteTeam: 'Arsenal' });
  // @ts-expect-error field values are strings or null
  await api.updateUser.mutate({ name: 42 });
  return user;
}

export async function onboardProfile() {
  const { success, data } = await api.onboardProfile.mutate({ name: 'Alice' });
  assertType<Equal<typeof success, true>>();
  assertType<Equal<typeof data.user.points, number>>();
  assertType<Equal<typeof data.updatedProfile.updatedAt, string>>();
  assertType<Equal<typeof data.leaderboardEntry.rank, number>>();
  assertType<Equal<typeof data.pointsHistory.balance, number>>();
  assertType<Equal<(typeof data.pointsHistory.entries)[number]['questId'], string | null>>();
  assertType<
    Equal<(typeof data.questSync.quests)[number]['status'], 'in_progress' | 'completed'>
  >();
  // @ts-expect-error rivalTeam is set with updateUser, not when onboarding
  await api.onboardProfile.mutate({ rivalTeam: 'Spurs' });
  return data;
}

export async function me() {
  const { data } = await api.me.query();
  assertType<Equal<typeof data.name, string | null>>();
  assertType<Equal<typeof data.createdAt, string>>();
  // @ts-expect-error handle is a string or null, never a number
  const handle: number = data.handle;
  return { data, handle };
}

export async function quests() {
  const { data } = await api.quests.query();
  const [first] = data.quests;
  assertType<Equal<typeof first, Outputs['quests']['data']['quests'][number] | undefined>>();
  assertType<Equal<NonNullable<typeof first>['progress'], number>>();
  assertType<Equal<NonNullable<typeof first>['completedAt'], string | null>>();
  return data;
}

export async function pointsHistory() {
  const first = await api.pointsHistory.query({ limit: 20 });
  const next = first.data.nextCursor
    ? await api.pointsHistory.query({ cursor: first.data.nextCursor })
    : undefined;
  assertType<Equal<typeof first.data.nextCursor, string | null>>();
  assertType<Equal<(typeof first.data.entries)[number]['delta'], number>>();
  assertType<Equal<Inputs['pointsHistory']['limit'], number | undefined>>();
  // @ts-expect-error limit is a number
  await api.pointsHistory.query({ limit: '20' });
  return next;
}

export async function leaderboard() {
  const { data } = await api.leaderboard.query({ limit: 10, team: 'Arsenal' });
  assertType<Equal<(typeof data.entries)[number]['userId'], string | null>>();
  assertType<Equal<(typeof data.entries)[number]['rank'], number>>();
  assertType<Equal<typeof data.nextCursor, string | null>>();
  return data;
}

export async function leaderboardSeasons() {
  const { data } = await api.leaderboardSeasons.query({ period: 'week', limit: 5 });
  assertType<Equal<(typeof data.entries)[number]['season'], string>>();
  assertType<Equal<typeof data.nextCursor, string | null>>();
  const closed = data.entries[0];
  if (closed) await api.leaderboard.query({ period: 'week', season: closed.season });
  // @ts-expect-error period is week or month
  await api.leaderboardSeasons.query({ period: 'all' });
  return data;
}

export async function leaderboardAroundMe() {
  const { data } = await api.leaderboardAroundMe.query({ radius: 3 });
  assertType<Equal<typeof data.entry.rank, number>>();
  assertType<Equal<(typeof data.above)[number]['points'], number>>();
  assertType<Equal<(typeof data.below)[number]['handle'], string | null>>();
  return data;
}

export async function exportAccount() {
  const { data } = await api.exportAccount.query();
  assertType<Equal<typeof data.exportedAt, string>>();
  assertType<Equal<typeof data.identity, { issuer: string; subject: string }>>();
  assertType<Equal<typeof data.user.points, number>>();
  assertType<Equal<typeof data.pointsLedger.balance, number>>();
  assertType<Equal<(typeof data.handleReservations)[number]['reservedUntil'], string>>();
  return data;
}

export async function deleteAccount() {
  const { data } = await api.deleteAccount.mutate();
  assertType<Equal<typeof data, { deleted: true; deletedAt: string }>>();
  return data;
}

export async function recordEvents() {
  const { data } = await api.recordEvents.mutate({
    events: [{ id: 'checkin-1', subject: 'fan-sub', type: 'match_checkin', value: 1 }],
  });
  const result = data.results[0]!;
  assertType<Equal<typeof result.status, 'recorded' | 'duplicate' | 'rejected'>>();
  if (result.status !== 'rejected') {
    assertType<Equal<typeof result.balance, number>>();
    assertType<Equal<(typeof result.questsCompleted)[number]['period'], string | null>>();
  }
  return data;
}

export async function reverseEvent() {
  const { data } = await api.reverseEvent.mutate({ id: 'checkin-1' });
  assertType<Equal<typeof data.status, 'reversed' | 'already_reversed'>>();
  assertType<Equal<typeof data.points, number>>();
  return data;
}

export async function adminListDefinitions() {
  const { data } = await api.adminListDefinitions.query({ kind: 'quest' });
  assertType<Equal<(typeof data.definitions)[number]['version'], number>>();
  return data;
}

export async function adminDefinitionHistory() {
  const { data } = await api.adminDefinitionHistory.query({ kind: 'quest', key: 'daily_reader' });
  assertType<Equal<(typeof data.versions)[number]['retired'], boolean>>();
  assertType<Equal<typeof data.nextCursor, string | null>>();
  if (data.nextCursor !== null) {
    await api.adminDefinitionHistory.query({
      kind: 'quest',
      key: 'daily_reader',
      limit: 50,
      cursor: data.nextCursor,
    });
  }
  return data;
}

export async function adminCreateDefinition() {
  const { data } = await api.adminCreateDefinition.mutate({
    definition: { kind: 'event_type', key: 'cup_final_checkin', title: 'Cup final', points: 40 },
  });
  assertType<Equal<typeof data.changedAt, string>>();
  return data;
}

export async function adminUpdateDefinition() {
  const { data } = await api.adminUpdateDefinition.mutate({
    kind: 'event_type',
    key: 'cup_final_checkin',
    expectedVersion: 1,
    definition: { kind: 'event_type', key: 'cup_final_checkin', title: 'Cup final', points: 50 },
  });
  return data.version;
}

export async function adminPatchDefinition() {
  const { data } = await api.adminPatchDefinition.mutate({
    kind: 'event_type',
    key: 'cup_final_checkin',
    expectedVersion: 1,
    definition: { points: 50 },
  });
  await api.adminPatchDefinition.mutate({
    kind: 'quest',
    key: 'k',
    expectedVersion: 1,
    // @ts-expect-error a patch never names the key: it is in the path
    definition: { key: 'x' },
  });
  return data.version;
}

export async function adminRetireDefinition() {
  const { data } = await api.adminRetireDefinition.mutate({
    kind: 'event_type',
    key: 'cup_final_checkin',
    expectedVersion: 2,
  });
  return data.retired;
}

export async function adminAdjustPoints() {
  const { data } = await api.adminAdjustPoints.mutate({
    userId: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    id: 'goodwill-1',
    points: 10,
    reason: 'Gate scanner down',
  });
  assertType<Equal<typeof data.status, 'adjusted' | 'duplicate'>>();
  return data;
}

export async function adminSetBan() {
  const { data } = await api.adminSetBan.mutate({
    userId: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    banned: true,
    reason: 'Scripted check-ins',
  });
  assertType<Equal<typeof data.bannedAt, string | null>>();
  return data;
}

export async function adminReverseEvent() {
  const { data } = await api.adminReverseEvent.mutate({
    clientId: 'checkin-service',
    id: 'checkin-1',
    reason: 'Duplicate scan',
  });
  return data.balance;
}

export async function adminAuditLog() {
  const { data } = await api.adminAuditLog.query({ limit: 10 });
  assertType<Equal<typeof data.nextCursor, string | null>>();
  return data.entries;
}

export async function adminListWebhookEndpoints() {
  const { data } = await api.adminListWebhookEndpoints.query();
  assertType<Equal<(typeof data.endpoints)[number]['source'], 'admin' | 'config'>>();
  return data;
}

export async function adminCreateWebhookEndpoint() {
  const { data } = await api.adminCreateWebhookEndpoint.mutate({
    url: 'https://hooks.example.com/fan-app',
    eventTypes: ['points_awarded'],
  });
  assertType<Equal<typeof data.secret, string>>();
  return data.endpoint.id;
}

export async function adminUpdateWebhookEndpoint() {
  const { data } = await api.adminUpdateWebhookEndpoint.mutate({
    id: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    enabled: false,
  });
  return data;
}

export async function adminRotateWebhookEndpointSecret() {
  const { data } = await api.adminRotateWebhookEndpointSecret.mutate({
    id: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    overlapSeconds: 3600,
  });
  return data;
}

export async function adminRetireWebhookEndpoint() {
  const { data } = await api.adminRetireWebhookEndpoint.mutate({
    id: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
  });
  return data;
}

export async function adminFindFans() {
  const { data } = await api.adminFindFans.query({ query: '@alice' });
  assertType<
    Equal<
      (typeof data.fans)[number]['matchedBy'][number],
      'id' | 'subject' | 'handle' | 'handle_prefix'
    >
  >();
  return data.fans;
}

export async function adminFan() {
  const { data } = await api.adminFan.query({ userId: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35' });
  assertType<Equal<(typeof data.boards)[number]['rank'], number | null>>();
  assertType<Equal<typeof data.fan.bannedAt, string | null>>();
  return data.ledger.entries;
}

export async function adminFanPoints() {
  const { data } = await api.adminFanPoints.query({
    userId: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    limit: 20,
  });
  assertType<Equal<typeof data.nextCursor, string | null>>();
  return data.entries;
}

export async function adminFanEvents() {
  const { data } = await api.adminFanEvents.query({
    userId: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
  });
  assertType<Equal<(typeof data.entries)[number]['reversedAt'], string | null>>();
  return data.entries;
}

export async function adminOverview() {
  const { data } = await api.adminOverview.query({ window: 'day' });
  assertType<Equal<typeof data.window, 'hour' | 'day'>>();
  assertType<Equal<(typeof data.events)[number]['counts'], number[]>>();
  assertType<Equal<typeof data.webhooks.gaveUp, number>>();
  // @ts-expect-error the window is an hour or a day
  await api.adminOverview.query({ window: 'week' });
  return data.points;
}

export async function adminLeaderboard() {
  const { data } = await api.adminLeaderboard.query({ board: 'team', team: 'Arsenal', limit: 100 });
  assertType<Equal<typeof data.board, 'global' | 'team' | 'week' | 'month'>>();
  assertType<Equal<(typeof data.entries)[number]['rank'], number>>();
  // @ts-expect-error the board is global, team, week or month
  await api.adminLeaderboard.query({ board: 'all' });
  return data.entries;
}

export async function adminLeaderboardSeasons() {
  const { data } = await api.adminLeaderboardSeasons.query({ period: 'week' });
  assertType<Equal<typeof data.open.season, string>>();
  assertType<Equal<(typeof data.entries)[number]['endsAt'], string>>();
  return data.entries;
}

export async function adminWebhookDeliveries() {
  const { data } = await api.adminWebhookDeliveries.query({
    id: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    outcome: 'gave_up',
  });
  assertType<Equal<(typeof data.entries)[number]['outcome'], 'delivered' | 'failed' | 'gave_up'>>();
  return data.entries;
}

export async function adminRedeliverWebhook() {
  const { data } = await api.adminRedeliverWebhook.mutate({
    id: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
    eventId: '48213',
  });
  assertType<Equal<typeof data.status, 'queued' | 'already_queued'>>();
  return data;
}

export async function adminTestWebhookEndpoint() {
  const { data } = await api.adminTestWebhookEndpoint.mutate({
    id: '3f6c2a9e-8b1d-4c57-9e2a-7d4b1f0c6a35',
  });
  assertType<Equal<typeof data.statusCode, number | null>>();
  return data;
}

/** Subscriptions go over Server-Sent Events (createClient's httpSubscriptionLink). */
export function myEvents() {
  return api.myEvents.subscribe(
    { lastEventId: '42' },
    {
      onData({ id, data: event }) {
        assertType<Equal<typeof id, string>>();
        assertType<
          Equal<
            typeof event.type,
            | 'points_awarded'
            | 'quest_completed'
            | 'rank_changed'
            | 'streak_extended'
            | 'streak_lost'
            | 'account_deleted'
            | 'resync'
          >
        >();
        if (event.type === 'points_awarded') assertType<Equal<typeof event.data.balance, number>>();
        if (event.type === 'rank_changed') {
          assertType<Equal<typeof event.data.previousRank, number | null>>();
        }
      },
    },
  );
}

export function leaderboardEvents() {
  return api.leaderboardEvents.subscribe(
    { team: 'Arsenal', top: 5 },
    {
      onData(update) {
        assertType<Equal<typeof update.board, 'global' | 'team'>>();
        assertType<Equal<(typeof update.entries)[number]['rank'], number>>();
      },
    },
  );
}

export function adminLeaderboardEvents() {
  return api.adminLeaderboardEvents.subscribe(
    { top: 100 },
    {
      onData(update) {
        assertType<Equal<typeof update.board, 'global' | 'team'>>();
        assertType<Equal<(typeof update.entries)[number]['points'], number>>();
      },
    },
  );
}

/** Errors carry the service's contract code in `data.errorCode`. */
export async function errors() {
  try {
    await api.updateUser.mutate({ handle: 'ann' });
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const typed = error as TRPCClientError<AppRouter>;
    const code = typed.data?.errorCode;
    assertType<Equal<'HANDLE_TAKEN' extends NonNullable<typeof code> ? true : false, true>>();
    // @ts-expect-error errorCode is one of the contract codes, not any string
    const unknownCode: typeof code = 'NOT_A_CODE';
    const issues = typed.data?.issues;
    assertType<Equal<typeof issues, { path: string; message: string }[] | undefined>>();
    return { code, unknownCode, issues };
  }
  return undefined;
}

export async function noSuchProcedure() {
  // @ts-expect-error the router has no such procedure
  await api.noSuchProcedure.query();
}
