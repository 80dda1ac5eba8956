import {
  exportAccount,
  getCurrentUser,
  getPointsHistory,
  getQuests,
} from '../src/services/account.js';
import { deleteAccount } from '../src/services/deletion.js';
import { onboard, updateProfile } from '../src/services/profile.js';
import { authenticatedProcedure, protectedProcedure, router } from '../src/trpc/init.js';
import {
  ok,
  toAccountExport,
  toLeaderboardEntry,
  toLedgerEntry,
  toPointsHistoryPage,
  toQuestList,
  toQuestSync,
  toUpdatedProfile,
  toUser,
} from './dto.js';
import { PointsHistoryInput, PointsHistoryPageSchema, QuestListSchema } from './points-schemas.js';
import {
  AccountDeletionSchema,
  AccountExportSchema,
  OnboardingSchema,
  OnboardProfileInput,
  UpdateUserInput,
  UserSchema,
} from './profile-schemas.js';
import { success } from './schemas.js';
import { QUERY_ERRORS, READ_ERRORS, WRITE_ERRORS } from './operation-errors.js';

export const userRouter = router({
  updateUser: protectedProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/api/user',
        summary: 'Update the signed-in user’s profile',
        description:
          'Changes any of the eight profile fields and returns the full user. Works before ' +
          'onboarding (the profile is created on first write). After onboarding, quests are ' +
          'synced and their points awarded in the same atomic write. A write that changes ' +
          'nothing leaves updatedAt alone.',
        tags: ['user'],
        errorResponses: WRITE_ERRORS,
        protect: true,
      },
    })
    .input(UpdateUserInput)
    .output(success(UserSchema))
    .mutation(async ({ ctx, input }) => {
      const write = await updateProfile(ctx.deps, ctx.userId, input);
      return ok(toUser(write.user, write.profile, write.points));
    }),

  onboardProfile: protectedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/api/user/profile',
        summary: 'Onboard the signed-in user',
        description:
          'Sets the given profile fields, marks the user onboarded, syncs quests (awarding their ' +
          'points through the ledger) and makes sure the user has a leaderboard entry, all in ' +
          'one atomic write. Idempotent: repeating it applies new field values but never awards ' +
          'the same points twice. 201 the first time, 200 after.',
        tags: ['user'],
        errorResponses: WRITE_ERRORS,
        protect: true,
        successDescription: 'Already onboarded: fields applied, nothing awarded twice',
      },
      created: 'Onboarded by this call: quests synced and points awarded',
    })
    .input(OnboardProfileInput)
    .output(success(OnboardingSchema))
    .mutation(async ({ ctx, input }) => {
      const result = await onboard(ctx.deps, ctx.userId, input);
      ctx.response.created = result.firstOnboarding;
      return ok({
        user: toUser(result.user, result.profile, result.points),
        updatedProfile: toUpdatedProfile(result.user, result.profile),
        leaderboardEntry: toLeaderboardEntry(result.leaderboardEntry),
        pointsHistory: {
          balance: result.points,
          entries: result.pointsHistory.map(toLedgerEntry),
        },
        questSync: toQuestSync(result.questSync),
      });
    }),

  me: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/user',
        summary: 'The signed-in user',
        description:
          'The full user: profile fields, points balance and timestamps. Also before ' +
          'onboarding (onboardedAt is null, points 0).',
        tags: ['user'],
        errorResponses: READ_ERRORS,
        protect: true,
      },
    })
    .output(success(UserSchema))
    .query(async ({ ctx }) => {
      const current = await ctx.deps.reads.own(ctx.userId, (db) => getCurrentUser(db, ctx.userId));
      return ok(toUser(current.user, current.profile, current.points));
    }),

  pointsHistory: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/user/points',
        summary: 'The signed-in user’s points ledger, one page at a time',
        description:
          'Ledger entries, newest first. Pages follow nextCursor. Empty before onboarding.',
        tags: ['user'],
        errorResponses: QUERY_ERRORS,
        protect: true,
      },
    })
    .input(PointsHistoryInput)
    .output(success(PointsHistoryPageSchema))
    .query(async ({ ctx, input }) => {
      const page = await ctx.deps.reads.own(ctx.userId, (db) =>
        getPointsHistory(db, ctx.userId, { limit: input.limit, beforeId: input.cursor }),
      );
      return ok(toPointsHistoryPage(page));
    }),

  quests: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/user/quests',
        summary: 'Every active quest and streak with the signed-in user’s progress',
        description:
          'Every active quest in the period holding now (a repeating quest shows its period and ' +
          'when it resets), and every streak with its next deadline. Before onboarding, profile ' +
          'quests show their progress from the profile and none is completed yet: onboarding ' +
          'completes and awards them.',
        tags: ['user'],
        errorResponses: READ_ERRORS,
        protect: true,
      },
    })
    .output(success(QuestListSchema))
    .query(async ({ ctx }) => {
      const catalog = await ctx.deps.catalog.current();
      const game = await ctx.deps.reads.own(ctx.userId, (db) =>
        getQuests(db, catalog, ctx.userId, ctx.deps.clock()),
      );
      return ok(toQuestList(game));
    }),

  exportAccount: protectedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/api/user/export',
        summary: 'Everything the service holds about the signed-in user',
        description:
          'One JSON document: the identity the account is keyed by, the user and profile, ' +
          'every handle change, handles reserved for you, the whole points ledger (oldest ' +
          'first), quest progress and your board entries with their ranks (GDPR articles 15 ' +
          'and 20).',
        tags: ['user'],
        errorResponses: READ_ERRORS,
        protect: true,
      },
    })
    .output(success(AccountExportSchema))
    .query(async ({ ctx }) => {
      const catalog = await ctx.deps.catalog.current();
      const account = await ctx.deps.reads.own(ctx.userId, (db) =>
        exportAccount(db, catalog, ctx.userId, ctx.deps.clock()),
      );
      return ok(toAccountExport(account));
    }),

  // Never protectedProcedure: resolving the identity would create the user it then deletes.
  deleteAccount: authenticatedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/api/user',
        summary: 'Delete the signed-in user’s account',
        description:
          'Erases the account in one transaction: profile, quest progress, board entries and ' +
          'handle history are deleted; the ledger rows are kept without anything that points ' +
          'back at you; your handles are free for anyone at once. The same identity signing ' +
          'in afterwards starts as a new, empty user. Repeating the call does no harm: it ' +
          'answers the same way.',
        tags: ['user'],
        errorResponses: READ_ERRORS,
        protect: true,
      },
    })
    .output(success(AccountDeletionSchema))
    .mutation(async ({ ctx }) => {
      const { deletedAt } = await deleteAccount(ctx.deps.db, ctx.principal);
      // The fan leaves every board at once on this instance (the first pages' bound elsewhere).
      ctx.deps.firstPages.clear();
      ctx.deps.userIds.forget(ctx.principal);
      return ok({ deleted: true as const, deletedAt: deletedAt.toISOString() });
    }),
});
