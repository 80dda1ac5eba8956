import type { TRPCClientError } from '@trpc/client';
import type { inferRouterError, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { describe, expectTypeOf, it } from 'vitest';
// The documented entry point (package.json "exports"), as a client imports it.
import type { AppRouter } from 'user-profile-service';
import type { ErrorCode } from '../../src/app-error.js';
import type { paths } from '../../client/src/openapi-types.js';

/**
 * Type-level contract of the tRPC face: `npm run typecheck` fails when an
 * input or output type of a procedure changes incompatibly. (At run time
 * these assertions do nothing; tsc is what checks them.)
 */
type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;

type Field = string | null | undefined;
interface ProfileInput {
  name?: Field;
  handle?: Field;
  location?: Field;
  favoriteSport?: Field;
  favoriteTeam?: Field;
  favoritePlayer?: Field;
  rivalTeam?: Field;
  profileUrl?: Field;
}
interface Profile {
  name: string | null;
  handle: string | null;
  location: string | null;
  favoriteSport: string | null;
  favoriteTeam: string | null;
  favoritePlayer: string | null;
  rivalTeam: string | null;
  profileUrl: string | null;
}
interface User extends Profile {
  id: string;
  points: number;
  onboardedAt: string | null;
  createdAt: string;
  updatedAt: string;
}
interface UpdatedProfile extends Profile {
  updatedAt: string;
}
interface QuestProgress {
  id: string;
  title: string;
  description: string;
  points: number;
  progress: number;
  target: number;
  status: 'in_progress' | 'completed';
  completedAt: string | null;
  period: string | null;
  resetsAt: string | null;
  tiersReached: number;
  tiers: { target: number; points: number }[];
}
type CreditSource =
  | { kind: 'quest'; questId: string; period: string | null; tier: number }
  | { kind: 'event'; type: string; clientId: string; eventId: string }
  | { kind: 'streak'; streakId: string; length: number }
  | { kind: 'reversal'; type: string; clientId: string; eventId: string }
  | { kind: 'adjustment'; by: string; note: string };

interface Onboarding {
  user: User;
  updatedProfile: UpdatedProfile;
  leaderboardEntry: {
    userId: string;
    handle: string | null;
    name: string | null;
    profileUrl: string | null;
    points: number;
    rank: number;
  };
  pointsHistory: {
    balance: number;
    entries: {
      id: string;
      delta: number;
      reason: string;
      questId: string | null;
      source: CreditSource;
      balanceAfter: number;
      createdAt: string;
    }[];
  };
  questSync: { pointsAwarded: number; completed: QuestProgress[]; quests: QuestProgress[] };
}

describe('type AppRouter', () => {
  it('types updateUser: any of the eight fields in, the full user out', () => {
    expectTypeOf<Inputs['updateUser']>().toEqualTypeOf<ProfileInput>();
    expectTypeOf<Outputs['updateUser']>().toEqualTypeOf<{ success: true; data: User }>();
  });

  it('types onboardProfile: every field but rivalTeam in, the onboarding result out', () => {
    expectTypeOf<Inputs['onboardProfile']>().toEqualTypeOf<Omit<ProfileInput, 'rivalTeam'>>();
    expectTypeOf<Outputs['onboardProfile']>().toEqualTypeOf<{
      success: true;
      data: Onboarding;
    }>();
  });

  it('types errors with the contract code and issues', () => {
    type ErrorData = inferRouterError<AppRouter>['data'];
    expectTypeOf<ErrorData['errorCode']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<ErrorData['issues']>().toEqualTypeOf<
      { path: string; message: string }[] | undefined
    >();
    expectTypeOf<TRPCClientError<AppRouter>['data']>().toEqualTypeOf<
      ErrorData | null | undefined
    >();
  });

  it('refuses what the service refuses', () => {
    expectTypeOf<Inputs['onboardProfile']>().not.toHaveProperty('rivalTeam');
    expectTypeOf<{ favouriteTeam: string }>().not.toExtend<Inputs['updateUser']>();
  });
});

describe('generated REST client types', () => {
  it('type the bodies and the error envelope from openapi.json', () => {
    type PatchBody = paths['/api/user']['patch']['requestBody']['content']['application/json'];
    expectTypeOf<PatchBody>().toEqualTypeOf<ProfileInput>();
    type Envelope = paths['/api/user']['patch']['responses'][409]['content']['application/json'];
    expectTypeOf<Envelope['error']['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<
      paths['/api/user/profile']['post']['responses'][201]['content']['application/json']['data']
    >().toEqualTypeOf<Onboarding>();
  });
});
