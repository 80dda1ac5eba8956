import { findRecordedEvents, type ActivityEntry } from '../../db/queries/activity.js';
import { archivedAmong } from '../../db/queries/season-archives.js';
import { ensureUsers, findUserIds } from '../../db/queries/users.js';
import {
  type LedgerCredit,
  type RecordedEventRow,
  type StateScope,
  type UsageWindow,
  type UserState,
  unchangedPlan,
  type UserWritePlan,
} from '../../db/queries/user-write/index.js';
import {
  capWindows,
  checkEvent,
  eventBodyHash,
  isRejection,
  planFanEvents,
  reversalKey,
  unknownSubjectRejection,
  usageKey,
  type AcceptedEvent,
  type CompletedQuest,
  type Rejection,
  type FanActivityPlan,
  type SentEvent,
} from '../domain/activity.js';
import { isAccount } from '../domain/accounts.js';
import { ALL_TIME_BOARD, seasonBoards, writeBoards } from '../domain/boards.js';
import type { Catalog } from '../domain/catalog.js';
import {
  pointsAwarded,
  questCompleted,
  streakChanged,
  type NewLiveEvent,
} from '../domain/events.js';
import { pointsMove, type Award } from '../domain/ledger.js';
import { placeMoves } from '../domain/placement.js';
import { currentPeriods, periodAt } from '../domain/periods.js';
import { QuestBook } from '../domain/quests.js';
import { isDatabaseUnavailable } from '../../db/queries/errors.js';
import { AppError } from '../app-error.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { takeUpTo, type RateLimiter } from '../rate-limit.js';
import { metrics } from '../metrics.js';
import type { WriteDeps } from './profile.js';
import { activityWrite, fanScope, type Sender } from './event-writes.js';

export type { Sender };
import { writeFans, type FanWrite } from './fan-writes.js';

/**
 * Points from activity (docs/ACTIVITY.md): a batch of events from another
 * service, each recorded at most once per (client, id), planned per fan
 * from the fan's state, and stored for all the batch's fans in one
 * statement, each fan's part guarded by its version (src/services/fan-writes.ts).
 */

/** What the events path needs besides the write path's collaborators. */
export interface ActivityDeps extends WriteDeps {
  config: WriteDeps['config'] & { activity: Config['activity'] };
  /** Counts the users each client's events create (EVENT_NEW_SUBJECTS_PER_MINUTE); absent: no limit. */
  newSubjectLimiter?: RateLimiter | undefined;
  /** Where a fan's failed write is reported (its events answer INTERNAL). */
  logger: Pick<Logger, 'error'>;
  /** Told each fan written (read-your-writes, the shared first pages: AppDeps.wrote). */
  wrote?: (userId: string) => void;
}

export type EventResult =
  | {
      id: string;
      status: 'recorded' | 'duplicate';
      points: number;
      balance: number;
      questsCompleted: CompletedQuest[];
      reversed: boolean;
    }
  | { id: string; status: 'rejected'; error: Rejection };

/**
 * Records a batch: each event's result, in order. A batch is not
 * all-or-nothing; each event is (and the events of one fan in one batch are
 * written together).
 */
export async function recordEvents(
  deps: ActivityDeps,
  sender: Sender,
  events: readonly SentEvent[],
): Promise<EventResult[]> {
  const catalog = await deps.catalog.current();
  const now = deps.clock();
  const results: (EventResult | undefined)[] = events.map(() => undefined);

  // Sent before (by anyone, in this batch or an earlier one): the stored result.
  const stored = await findRecordedEvents(
    deps.db,
    sender.clientId,
    events.map((event) => event.id),
  );
  const firstOfId = new Map<string, number>();
  const byFan = new Map<string, AcceptedEvent[]>();
  events.forEach((event, index) => {
    const hash = eventBodyHash(event);
    const earlier = stored.get(event.id);
    if (earlier) {
      results[index] = replay(event.id, hash, earlier);
      return;
    }
    const first = firstOfId.get(event.id);
    if (first !== undefined) return; // answered from the first one, below
    firstOfId.set(event.id, index);
    const checked = checkEvent(event, index, catalog, now, deps.config.activity.maxAgeHours);
    if (isRejection(checked)) {
      results[index] = rejected(event.id, checked);
      return;
    }
    const fan = byFan.get(event.subject) ?? [];
    fan.push(checked);
    byFan.set(event.subject, fan);
  });

  const { userIds, refused } = await fansOf(deps, sender, [...byFan.keys()]);
  const fans = [...byFan].flatMap(([subject, accepted]) => {
    const rejection = refused.get(subject);
    if (rejection) {
      for (const event of accepted) results[event.index] = rejected(event.id, rejection);
      return [];
    }
    return [{ userId: userIds.get(subject)!, events: accepted }];
  });
  const written = await writeFans(
    deps,
    fans.map((fan) => fanEvents(deps, catalog, sender, fan, now)),
    { writer: 'events' },
  );
  written.forEach((answer, i) => {
    const answers = answer.ok ? answer.value : notWritten(deps, fans[i]!, answer.error);
    for (const [index, result] of answers) results[index] = result;
  });

  // A repeat of an id within the batch: the first one's answer, if it is the same event.
  events.forEach((event, index) => {
    if (results[index]) return;
    const first = results[firstOfId.get(event.id)!]!;
    const same = eventBodyHash(events[firstOfId.get(event.id)!]!) === eventBodyHash(event);
    results[index] = !same
      ? rejected(event.id, reusedId())
      : first.status === 'rejected'
        ? first
        : { ...first, status: 'duplicate' };
  });
  for (const result of results) {
    metrics.event(result!.status, result!.status === 'rejected' ? result!.error.code : '');
  }
  return results.map((result) => result!);
}

/**
 * The users of the batch's subjects (docs/ACTIVITY.md, "Fans the service has
 * not seen"): those that have one, and a new user for each other subject —
 * unless the deployment refuses unknown subjects, or the sender has created
 * as many new fans this minute as it may (the first ones in batch order get
 * theirs). A refused subject's events are rejected, and nothing is created.
 */
async function fansOf(
  deps: ActivityDeps,
  sender: Sender,
  subjects: readonly string[],
): Promise<{ userIds: Map<string, string>; refused: Map<string, Rejection> }> {
  const userIds = await findUserIds(deps.db, sender.issuer, subjects);
  const unknown = subjects.filter((subject) => !userIds.has(subject));
  const { unknownSubjects, newSubjectsPerMinute } = deps.config.activity;
  let admitted = unknown.length;
  if (unknown.length > 0 && unknownSubjects === 'reject') admitted = 0;
  else if (unknown.length > 0 && deps.newSubjectLimiter) {
    admitted = await takeUpTo(deps.newSubjectLimiter, sender.clientId, unknown.length);
  }
  const rejection = unknownSubjectRejection(
    unknownSubjects === 'reject' ? { refused: true } : { perMinute: newSubjectsPerMinute },
  );
  const refused = new Map(unknown.slice(admitted).map((subject) => [subject, rejection]));
  for (const [subject, id] of await ensureUsers(
    deps.db,
    sender.issuer,
    unknown.slice(0, admitted),
  )) {
    userIds.set(subject, id);
  }
  return { userIds, refused };
}

/**
 * One fan's events when their write failed: nothing of them was written (one
 * statement), and the other fans' results stand, so each of these events is
 * answered on its own — UNAVAILABLE for a write that may land if sent again
 * (too many simultaneous writes, the fan deleted meanwhile), INTERNAL
 * (logged) for anything else — instead of failing the batch, whose other
 * events a resend could then never learn. The database being unreachable
 * is no one fan's problem: the whole batch answers 503.
 */
function notWritten(
  deps: Pick<ActivityDeps, 'logger'>,
  fan: { userId: string; events: AcceptedEvent[] },
  error: unknown,
): Map<number, EventResult> {
  if (isDatabaseUnavailable(error)) throw error;
  const retry = error instanceof AppError && error.code === 'UNAVAILABLE';
  if (!retry)
    deps.logger.error({ err: error, userId: fan.userId }, 'a fan’s events were not written');
  const rejection: Rejection = retry
    ? { code: 'UNAVAILABLE', message: `Not recorded: ${error.message}` }
    : { code: 'INTERNAL', message: 'Not recorded: an internal error (logged); send it again' };
  return new Map(fan.events.map((event) => [event.index, rejected(event.id, rejection)]));
}

/** The answer to an id sent again: the stored result if the body is the same. */
function replay(id: string, hash: string, stored: ActivityEntry | RecordedEventRow): EventResult {
  if (stored.bodyHash !== hash) return rejected(id, reusedId());
  return {
    id,
    status: 'duplicate',
    points: stored.points,
    balance: stored.balanceAfter,
    questsCompleted: stored.questsCompleted as CompletedQuest[],
    reversed: stored.reversedAt !== null,
  };
}

function reusedId(): Rejection {
  return {
    code: 'EVENT_ID_REUSED',
    message: 'This id was already sent with a different body (subject, type, value or occurredAt)',
  };
}

function fanBanned(): Rejection {
  return { code: 'FAN_BANNED', message: 'The fan is banned: their events earn nothing' };
}

function rejected(id: string, error: Rejection): EventResult {
  return { id, status: 'rejected', error };
}

/**
 * One fan's events as a write of the engine (src/services/fan-writes.ts):
 * read the fan's state (with the cap windows the events count in and any of
 * their ids stored since the batch's lookup), plan, and write guarded by the
 * state's version; planned again when another write of the fan landed first.
 */
function fanEvents(
  deps: ActivityDeps,
  catalog: Catalog,
  sender: Sender,
  fan: { userId: string; events: AcceptedEvent[] },
  now: Date,
): FanWrite<Map<number, EventResult>> {
  return {
    userId: fan.userId,
    scope: fanScope(catalog, sender, fan.events, now),
    gone: () => {
      throw new AppError(
        'UNAVAILABLE',
        'A fan was deleted while their events were recorded; retry',
        { retryAfterSeconds: 1 },
      );
    },
    plan: (state) => {
      const answers = new Map<number, EventResult>();
      const fresh = fan.events.filter((event) => {
        const stored = state.recorded.get(event.id);
        if (stored) answers.set(event.index, replay(event.id, event.bodyHash, stored));
        return !stored;
      });
      if (state.user.bannedAt !== null) {
        for (const event of fresh) answers.set(event.index, rejected(event.id, fanBanned()));
        return { answer: answers };
      }
      // Before onboarding the points are kept in the ledger; the boards come at onboarding.
      const boards = state.user.onboardedAt !== null ? writeBoards(now) : [];
      const plan = planFanEvents({
        catalog,
        clientId: sender.clientId,
        state: {
          usage: state.usage,
          quests: state.quests,
          streaks: state.streaks,
          balance: state.points,
          entries: new Map([...state.entries].map(([board, entry]) => [board, entry.points])),
        },
        boards,
        events: fresh,
        now,
      });
      for (const [index, outcome] of plan.outcomes) {
        if (outcome.status === 'rejected')
          answers.set(
            index,
            rejected(fan.events.find((e) => e.index === index)!.id, outcome.rejection),
          );
      }
      if (plan.recorded.length === 0) return { answer: answers };
      const { write, balances } = activityWrite(state, sender, plan, boards, now);
      return {
        write,
        written: () => {
          for (const recorded of plan.recorded) {
            answers.set(recorded.event.index, {
              id: recorded.event.id,
              status: 'recorded',
              points: recorded.points,
              balance: balances.get(recorded.event.id)!,
              questsCompleted: recorded.questsCompleted,
              reversed: false,
            });
          }
          return answers;
        },
      };
    },
  };
}
