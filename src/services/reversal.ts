import { findRecordedEvents } from '../../db/queries/activity.js';
import { archivedAmong } from '../../db/queries/season-archives.js';
import { unchangedPlan, type UserWritePlan } from '../../db/queries/user-write/index.js';
import { reversalKey } from '../domain/activity.js';
import { isAccount } from '../domain/accounts.js';
import { ALL_TIME_BOARD, seasonBoards } from '../domain/boards.js';
import { pointsAwarded } from '../domain/events.js';
import { pointsMove, type Award } from '../domain/ledger.js';
import { periodAt } from '../domain/periods.js';
import { placeMoves } from '../domain/placement.js';
import { QuestBook } from '../domain/quests.js';
import { AppError } from '../app-error.js';
import type { ActivityDeps, Sender } from './activity.js';
import { writeFan } from './fan-writes.js';

export interface ReversalResult {
  id: string;
  status: 'reversed' | 'already_reversed';
  points: number;
  balance: number;
}

/**
 * Reverses one of the sender's events (docs/ACTIVITY.md, "Reversal"): a
 * compensating ledger entry, never a deletion. The balance, the all-time
 * board and the fan's entries on the week and month boards the points
 * landed on (those of when the event was recorded, unless that season's
 * standings are already archived: archives are final) move back in the same
 * statement; quests counting the event's type lose its progress, and keep
 * what they reached. Idempotent: reversing it again changes nothing.
 */
export async function reverseEvent(
  deps: ActivityDeps,
  sender: Sender,
  eventId: string,
  /** An admin reversing another client's event: kept in the audit log with the write. */
  admin?: { actor: string; reason: string },
): Promise<ReversalResult> {
  const catalog = await deps.catalog.current();
  const stored = (await findRecordedEvents(deps.db, sender.clientId, [eventId])).get(eventId);
  if (!stored) {
    throw new AppError(
      'NOT_FOUND',
      `No event "${eventId}" was recorded from client "${sender.clientId}"`,
    );
  }
  const seasons = seasonBoards(stored.recordedAt);
  const archived = await archivedAmong(deps.db, [seasons.week, seasons.month]);
  const notFound = () =>
    new AppError('NOT_FOUND', `The fan of event "${eventId}" no longer has an account`);
  return writeFan<ReversalResult>(
    deps,
    {
      userId: stored.userId,
      // The state, and the event in the same snapshot: a reversal that lands
      // after this read moves the version, and this one plans again.
      scope: {
        boards: [ALL_TIME_BOARD, seasons.week, seasons.month],
        periods: [
          ...new Set([
            '',
            ...(['day', 'week', 'month'] as const).map(
              (kind) => periodAt(kind, stored.occurredAt).id,
            ),
          ]),
        ],
        recorded: { clientId: sender.clientId, ids: [eventId] },
      },
      gone: () => {
        throw notFound();
      },
      plan: (state) => {
        const now = deps.clock();
        const event = state.recorded.get(eventId);
        // A deleted fan's events stay with their tombstone, which nothing is written for.
        if (!event || event.userId !== state.user.id || !isAccount(state.user)) throw notFound();
        if (event.reversedAt !== null) {
          return {
            answer: { id: eventId, status: 'already_reversed', points: 0, balance: state.points },
          };
        }
        if (state.points < event.points) {
          throw new AppError(
            'INSUFFICIENT_BALANCE',
            `Reversing "${eventId}" would take the fan's balance below 0: adjust it first`,
          );
        }
        const onBoards = state.user.onboardedAt !== null;
        const boards = onBoards
          ? [ALL_TIME_BOARD, seasons.week, seasons.month].filter(
              (board) =>
                board === ALL_TIME_BOARD || (state.entries.has(board) && !archived.has(board)),
            )
          : [];
        const awards: Award[] =
          event.points === 0
            ? []
            : [
                {
                  key: reversalKey(sender.clientId, eventId),
                  delta: -event.points,
                  source: {
                    kind: 'reversal',
                    type: event.type,
                    clientId: sender.clientId,
                    eventId,
                  },
                },
              ];
        const placed = placeMoves(
          state,
          onBoards,
          awards.map((award) => pointsMove(award, boards)),
        );
        const quests = new QuestBook(catalog, state.quests);
        quests.recordEvent(event.type, event.value, event.occurredAt, now, -1);
        const credit = placed.credits[0];
        const balance = credit?.balanceAfter ?? state.points;
        const write: UserWritePlan = {
          ...unchangedPlan(state, now),
          boards: placed.boards,
          quests: quests.plan().writes,
          credits: placed.credits,
          activity: { recorded: [], reversed: { clientId: sender.clientId, eventId } },
          events: credit
            ? [pointsAwarded({ ...credit, source: awards[0]!.source })].map((e) => ({
                type: e.type,
                payload: e.data,
              }))
            : [],
          announceRanks: onBoards && credit !== undefined,
          audit: admin && {
            actor: admin.actor,
            action: 'event.reverse',
            targetKind: 'fan',
            targetKey: state.user.id,
            before: { balance: state.points },
            after: {
              balance,
              clientId: sender.clientId,
              eventId,
              points: -event.points,
              reason: admin.reason,
            },
          },
        };
        return {
          write,
          written: () => ({ id: eventId, status: 'reversed', points: -event.points, balance }),
        };
      },
    },
    { writer: 'reversal' },
  );
}
