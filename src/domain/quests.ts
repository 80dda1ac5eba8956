import { questKey as instanceKey, type ProfileFields, type StoredQuest } from '../../db/schema.js';
import { filledFieldCount } from './profile.js';
import type { Catalog, Goal, QuestDefinition, Versioned } from './catalog.js';
import type { Award } from './ledger.js';
import { periodAt, type PeriodSpan } from './periods.js';

/**
 * Quests as the catalog defines them (docs/CATALOG.md): what a user's
 * progress on each is, when a tier is reached, and which award that earns.
 * Plain functions over plain data: the caller reads the stored state and
 * writes what these return.
 */

/** What profile goals are evaluated from: the stored profile and whether the user onboarded. */
export interface QuestState {
  profile: ProfileFields;
  onboarded: boolean;
}

export type { StoredQuest };

/** The stored quests of a user, by `instanceKey`. */
export type StoredQuests = ReadonlyMap<string, StoredQuest>;

/** One quest in one period: what the stored row of a user's progress is keyed by. */
export interface QuestInstance {
  quest: Versioned<QuestDefinition>;
  /** undefined for a one-time quest. */
  span: PeriodSpan | undefined;
}

/** The key of a stored quest in a StoredQuests map (the write module's, so reads and plans agree). */
export { instanceKey };

/** The instance of `quest` that holds `at` (its period for a repeating quest). */
export function questInstance(quest: Versioned<QuestDefinition>, at: Date): QuestInstance {
  const { repeat } = quest.definition;
  return { quest, span: repeat === 'once' ? undefined : periodAt(repeat, at) };
}

/**
 * The ledger idempotency key of a tier's award: unique per user in the
 * database, so a tier is awarded once per period whatever the concurrency and
 * whatever later changes to the definition. The first tier of a one-time
 * quest keeps the key it always had (`quest:<id>`).
 */
export function questAwardKey(questId: string, period: string, tierIndex: number): string {
  return (
    `quest:${questId}` +
    (period === '' ? '' : `:${period}`) +
    (tierIndex === 0 ? '' : `:t${tierIndex + 1}`)
  );
}

/** A tier reached by a plan: it earns `points` once, under `key`. */
export interface ReachedTier {
  instance: QuestInstance;
  /** 0-based. */
  tierIndex: number;
  points: number;
  key: string;
  /** The quest's state right after this tier was reached. */
  state: StoredQuest;
}

/** The award a reached tier earns. */
export function questAward(tier: ReachedTier): Award {
  return {
    key: tier.key,
    delta: tier.points,
    source: {
      kind: 'quest',
      questId: tier.instance.quest.definition.key,
      period: tier.instance.span?.id ?? null,
      tier: tier.tierIndex + 1,
    },
  };
}

/** A quest with one user's state of it: what every quest list shows. */
export interface QuestProgress {
  instance: QuestInstance;
  state: StoredQuest;
}

function emptyState(instance: QuestInstance): StoredQuest {
  const first = instance.quest.definition.tiers[0];
  return {
    questId: instance.quest.definition.key,
    period: instance.span?.id ?? '',
    progress: 0,
    target: first?.target ?? 1,
    tiersReached: 0,
    status: 'in_progress',
    completedAt: null,
  };
}

/** The stored state of `instance`, or its empty state. */
export function storedState(stored: StoredQuests, instance: QuestInstance): StoredQuest {
  const period = instance.span?.id ?? '';
  return stored.get(instanceKey(instance.quest.definition.key, period)) ?? emptyState(instance);
}

/**
 * The most progress a quest stores: far past every target (at most
 * 1,000,000), inside its `integer` column however many values a `sum` goal
 * adds up. Progress beyond it reaches nothing more.
 */
export const PROGRESS_CEILING = 2_000_000_000;

/**
 * Moves a quest to `progress`: every tier whose target it reaches for the
 * first time is reached (in order) and returned. Reached tiers stay reached
 * if progress later falls (a cleared field, a reversed event).
 */
export function advanceQuest(
  instance: QuestInstance,
  before: StoredQuest,
  progress: number,
  now: Date,
): { after: StoredQuest; reached: ReachedTier[] } {
  const { tiers, key } = instance.quest.definition;
  const reached: ReachedTier[] = [];
  let state: StoredQuest = {
    ...before,
    progress: Math.min(PROGRESS_CEILING, Math.max(0, progress)),
  };
  // A definition may have lost tiers since they were reached: never count past its end.
  for (let i = state.tiersReached; i < tiers.length; i += 1) {
    const tier = tiers[i];
    if (!tier || progress < tier.target) break;
    const last = i === tiers.length - 1;
    state = {
      ...state,
      tiersReached: i + 1,
      status: last ? 'completed' : 'in_progress',
      completedAt: last ? (state.completedAt ?? now) : state.completedAt,
    };
    reached.push({
      instance,
      tierIndex: i,
      points: tier.points,
      key: questAwardKey(key, state.period, i),
      state,
    });
  }
  const next = tiers[Math.min(state.tiersReached, tiers.length - 1)];
  state = { ...state, target: next?.target ?? state.target };
  if (state.tiersReached >= tiers.length && state.status !== 'completed') {
    state = { ...state, status: 'completed', completedAt: state.completedAt ?? now };
  }
  return { after: state, reached };
}

function sameState(a: StoredQuest, b: StoredQuest): boolean {
  return (
    a.progress === b.progress &&
    a.target === b.target &&
    a.tiersReached === b.tiersReached &&
    a.status === b.status
  );
}

/** The progress a profile goal reads from the profile (undefined for other goals). */
function profileProgress(goal: Goal, state: QuestState): number | undefined {
  switch (goal.kind) {
    case 'onboarded':
      return state.onboarded ? 1 : 0;
    case 'field_set':
      return state.profile[goal.field] === null ? 0 : 1;
    case 'fields_filled':
      return filledFieldCount(state.profile);
    default:
      return undefined;
  }
}

/** What a plan changes in the stored quests, and what it earns. */
export interface QuestPlan {
  /** Rows whose stored progress, target, tiers or status change. */
  writes: StoredQuest[];
  /** Tiers reached, in the order they were reached: each earns its points once. */
  reached: ReachedTier[];
}

/**
 * A working copy of a user's quests that plans accumulate into, so several
 * changes in one write (a batch of events, a profile write) see each other.
 */
export class QuestBook {
  private readonly states: Map<string, StoredQuest>;
  private readonly written = new Map<string, StoredQuest>();
  private readonly reached: ReachedTier[] = [];

  constructor(
    private readonly catalog: Catalog,
    private readonly stored: StoredQuests,
  ) {
    this.states = new Map(stored);
  }

  state(instance: QuestInstance): StoredQuest {
    return storedState(this.states, instance);
  }

  /** Sets `instance`'s progress, recording the row and any tier reached. */
  progress(instance: QuestInstance, progress: number, now: Date): void {
    const before = this.state(instance);
    const { after, reached } = advanceQuest(instance, before, progress, now);
    const key = instanceKey(after.questId, after.period);
    this.states.set(key, after);
    if (!sameState(before, after) || !this.stored.has(key)) this.written.set(key, after);
    this.reached.push(...reached);
    if (reached.some((tier) => tier.state.status === 'completed')) this.syncQuestGoals(now);
  }

  /** Profile goals, evaluated from `state` (the caller syncs onboarded users only: onboarding is what awards). */
  syncProfile(state: QuestState, now: Date): void {
    for (const quest of this.catalog.quests) {
      const progress = profileProgress(quest.definition.goal, state);
      if (progress !== undefined) this.progress(questInstance(quest, now), progress, now);
    }
    this.syncQuestGoals(now);
  }

  /**
   * An event of `type` with `value`, occurred at `at`: every quest counting
   * that type moves (back, for a reversal: what was reached stays reached).
   * Returns the tiers it reached.
   */
  recordEvent(type: string, value: number, at: Date, now: Date, sign: 1 | -1 = 1): ReachedTier[] {
    const before = this.reached.length;
    for (const quest of this.catalog.quests) {
      const { goal } = quest.definition;
      if (goal.kind !== 'events' || goal.eventType !== type) continue;
      const instance = questInstance(quest, at);
      const step = goal.measure === 'sum' ? value : 1;
      this.progress(instance, this.state(instance).progress + sign * step, now);
    }
    return this.reached.slice(before);
  }

  /** Quests of quests: progress is how many listed one-time quests are completed. */
  private syncQuestGoals(now: Date): void {
    for (const quest of this.catalog.quests) {
      const { goal } = quest.definition;
      if (goal.kind !== 'quests') continue;
      const done = goal.quests.filter(
        (id) => this.states.get(instanceKey(id, ''))?.status === 'completed',
      ).length;
      const instance = questInstance(quest, now);
      if (done !== this.state(instance).progress) this.progress(instance, done, now);
    }
  }

  plan(): QuestPlan {
    return { writes: [...this.written.values()], reached: this.reached };
  }

  /** Puts the book back as it is now when the returned function is called (an event refused whole). */
  checkpoint(): () => void {
    const states = new Map(this.states);
    const written = new Map(this.written);
    const reached = this.reached.length;
    return () => {
      refill(this.states, states);
      refill(this.written, written);
      this.reached.length = reached;
    };
  }

  /** Every active quest's state for the period holding `now`. */
  views(now: Date): QuestProgress[] {
    return this.catalog.quests.map((quest) => {
      const instance = questInstance(quest, now);
      return { instance, state: this.state(instance) };
    });
  }
}

/** Makes `target` hold exactly what `source` holds. */
export function refill<K, V>(target: Map<K, V>, source: ReadonlyMap<K, V>): void {
  target.clear();
  for (const [key, value] of source) target.set(key, value);
}

/**
 * A profile write's quest sync: every profile goal evaluated from `state`,
 * and every quest's state for the period holding `now` afterwards.
 */
export function planQuestSync(
  catalog: Catalog,
  state: QuestState,
  stored: StoredQuests,
  now: Date,
): QuestPlan & { quests: QuestProgress[] } {
  const book = new QuestBook(catalog, stored);
  book.syncProfile(state, now);
  return { ...book.plan(), quests: book.views(now) };
}

/**
 * Every active quest's state as a reader sees it, without writing anything.
 * Before onboarding nothing is reached from the profile (onboarding is what
 * awards profile quests), so profile goals show their progress from the
 * profile and `in_progress`; after it, the stored state, which every write
 * keeps in step. Event goals show their stored progress either way.
 */
export function questProgress(
  catalog: Catalog,
  state: QuestState,
  stored: StoredQuests,
  now: Date,
): QuestProgress[] {
  const book = new QuestBook(catalog, stored);
  if (state.onboarded) {
    book.syncProfile(state, now);
    return book.views(now);
  }
  return book.views(now).map(({ instance, state: current }) => {
    const progress = profileProgress(instance.quest.definition.goal, state);
    return progress === undefined
      ? { instance, state: current }
      : { instance, state: { ...current, progress } };
  });
}
