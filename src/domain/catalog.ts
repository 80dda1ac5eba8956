import { z } from 'zod';
import { PROFILE_FIELDS } from '../../db/profile-fields.js';
import { freeText } from './text.js';

/**
 * The game as data (docs/CATALOG.md): event types, quests and streaks are rows
 * of `catalog_definitions`, validated here on the way in (admin API) and on
 * the way out (every instance's catalog cache). Plain data and plain
 * functions: nothing here reads the database or the clock.
 */

/** A definition's stable key: it appears in award keys, so it never changes meaning. */
export const DefinitionKeySchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'Must be 1–64 of a–z, 0–9 and _, starting with a letter')
  .meta({ description: 'Stable key: 1–64 of a–z, 0–9 and _, starting with a letter.' });

// Fans read titles and descriptions: the text rules of profile fields (src/domain/text.ts).
const Title = freeText(1, 80);
const Description = freeText(0, 500);
const Points = z.int().min(0).max(1_000_000);

/**
 * The most points one event's own award may be (its type's points × value).
 * It bounds each award, not what awards add up to: a balance and a board
 * entry are bounded by MAX_POINTS (src/domain/ledger.ts), checked where
 * points enter.
 */
export const MAX_POINTS_PER_EVENT = 1_000_000;

export const EventTypeDefinitionSchema = z
  .strictObject({
    kind: z.literal('event_type'),
    key: DefinitionKeySchema,
    title: Title,
    description: Description.default(''),
    points: Points.meta({
      description: 'Points per unit of `value` (an event’s value defaults to 1).',
    }),
    maxValue: z
      .int()
      .min(1)
      .max(1_000_000)
      .default(100)
      .meta({ description: 'The largest value one event may carry; a larger one is rejected.' }),
    caps: z
      .strictObject({
        day: z.int().min(1).max(1_000_000).optional(),
        week: z.int().min(1).max(1_000_000).optional(),
      })
      .default({})
      .meta({
        description:
          'Units (the sum of values) one fan may record per UTC day / ISO week (UTC); an event ' +
          'that would pass a cap is rejected whole.',
      }),
  })
  .refine((d) => d.points * d.maxValue <= MAX_POINTS_PER_EVENT, {
    message: `points × maxValue may not exceed ${MAX_POINTS_PER_EVENT}`,
    path: ['maxValue'],
  });
export type EventTypeDefinition = z.infer<typeof EventTypeDefinitionSchema>;

/** How often a quest starts afresh (in UTC; weeks are ISO weeks, Monday to Sunday). */
export const RepeatSchema = z.enum(['once', 'day', 'week', 'month']);
export type Repeat = z.infer<typeof RepeatSchema>;

/** What a quest's progress counts. */
export const GoalSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('onboarded'),
  }),
  z.strictObject({
    kind: z.literal('field_set'),
    field: z.enum(PROFILE_FIELDS),
  }),
  z.strictObject({
    kind: z.literal('fields_filled'),
  }),
  z.strictObject({
    kind: z.literal('events'),
    eventType: DefinitionKeySchema,
    measure: z
      .enum(['count', 'sum'])
      .default('count')
      .meta({ description: '`count` counts events; `sum` adds their values.' }),
  }),
  z.strictObject({
    kind: z.literal('quests'),
    quests: z.array(DefinitionKeySchema).min(1).max(20),
  }),
]);
export type Goal = z.infer<typeof GoalSchema>;

/** Goals read from the profile: one-time, and their progress is the profile's state. */
const PROFILE_GOALS: ReadonlySet<Goal['kind']> = new Set([
  'onboarded',
  'field_set',
  'fields_filled',
]);

export const TierSchema = z.strictObject({
  target: z.int().min(1).max(1_000_000),
  points: Points,
});

export const QuestDefinitionSchema = z
  .strictObject({
    kind: z.literal('quest'),
    key: DefinitionKeySchema,
    title: Title,
    description: Description.default(''),
    /** Display order among quests (then key). */
    order: z.int().min(0).max(1_000_000).default(1000),
    repeat: RepeatSchema.default('once'),
    goal: GoalSchema,
    tiers: z.array(TierSchema).min(1).max(10).meta({
      description: 'Targets in increasing order; reaching each awards its points once per period.',
    }),
  })
  .superRefine((d, ctx) => {
    d.tiers.forEach((tier, i) => {
      const previous = d.tiers[i - 1];
      if (previous && tier.target <= previous.target) {
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', i, 'target'],
          message: 'Targets must increase',
        });
      }
    });
    const highest = d.tiers[d.tiers.length - 1]?.target ?? 0;
    if (PROFILE_GOALS.has(d.goal.kind) && d.repeat !== 'once') {
      ctx.addIssue({ code: 'custom', path: ['repeat'], message: 'Profile goals cannot repeat' });
    }
    const reachable = goalCeiling(d.goal);
    if (reachable !== undefined && highest > reachable) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers'],
        message: `This goal's progress never passes ${reachable}`,
      });
    }
    if (d.goal.kind === 'quests' && d.goal.quests.includes(d.key)) {
      ctx.addIssue({
        code: 'custom',
        path: ['goal', 'quests'],
        message: 'A quest cannot need itself',
      });
    }
  });
export type QuestDefinition = z.infer<typeof QuestDefinitionSchema>;

/** The most progress a goal can reach, where it has a ceiling. */
function goalCeiling(goal: Goal): number | undefined {
  switch (goal.kind) {
    case 'onboarded':
    case 'field_set':
      return 1;
    case 'fields_filled':
      return PROFILE_FIELDS.length;
    case 'quests':
      return goal.quests.length;
    case 'events':
      return undefined;
  }
}

export const StreakDefinitionSchema = z
  .strictObject({
    kind: z.literal('streak'),
    key: DefinitionKeySchema,
    title: Title,
    description: Description.default(''),
    order: z.int().min(0).max(1_000_000).default(1000),
    eventType: DefinitionKeySchema,
    period: z.enum(['day', 'week']).meta({
      description: 'A streak counts consecutive UTC days or ISO weeks with a qualifying event.',
    }),
    milestones: z
      .array(z.strictObject({ length: z.int().min(1).max(10_000), points: Points }))
      .max(20)
      .default([]),
  })
  .superRefine((d, ctx) => {
    d.milestones.forEach((m, i) => {
      const previous = d.milestones[i - 1];
      if (previous && m.length <= previous.length) {
        ctx.addIssue({
          code: 'custom',
          path: ['milestones', i, 'length'],
          message: 'Lengths must increase',
        });
      }
    });
  });
export type StreakDefinition = z.infer<typeof StreakDefinitionSchema>;

// Discriminated by `kind`: a body of a known kind is checked against that kind alone, so each
// problem is named by its field (`definition.title`), not one "Invalid input" for the union.
export const DefinitionSchema = z.discriminatedUnion('kind', [
  EventTypeDefinitionSchema,
  QuestDefinitionSchema,
  StreakDefinitionSchema,
]);
export type Definition = z.infer<typeof DefinitionSchema>;
export type DefinitionKind = Definition['kind'];

type Patchable<S extends z.ZodRawShape> = {
  [K in Exclude<keyof S, 'kind' | 'key'>]: z.ZodOptional<
    S[K] extends z.ZodDefault<infer T extends z.ZodType> ? T : S[K]
  >;
};

/** A kind's fields but kind and key, each optional and without its default. */
function patchable<S extends z.ZodRawShape>(shape: S): Patchable<S> {
  return Object.fromEntries(
    Object.entries(shape)
      .filter(([name]) => name !== 'kind' && name !== 'key')
      .map(([name, field]) => {
        const bare = (field instanceof z.ZodDefault ? field.unwrap() : field) as z.ZodType;
        return [name, bare.optional()];
      }),
  ) as Patchable<S>;
}

/**
 * A partial change of a definition (PATCH): any fields of its kind, each
 * checked as the full definition checks it; a field left out keeps its value
 * (a default is never filled in). The changed definition is checked whole
 * again (`patchedDefinition`), so a field of another kind is refused there.
 */
export const DefinitionPatchSchema = z
  .strictObject({
    ...patchable(EventTypeDefinitionSchema.shape),
    ...patchable(QuestDefinitionSchema.shape),
    ...patchable(StreakDefinitionSchema.shape),
  })
  .refine((patch) => Object.keys(patch).length > 0, 'No fields to change');
export type DefinitionPatch = z.infer<typeof DefinitionPatchSchema>;

/** `current` with the patch's fields in place of its own, checked as a whole definition. */
export function patchedDefinition(current: Definition, patch: DefinitionPatch) {
  return DefinitionSchema.safeParse({ ...current, ...patch });
}

/** A definition as stored: its body and the version it has. */
export interface Versioned<D extends Definition = Definition> {
  definition: D;
  version: number;
}

/** The active definitions, as every rule reads them. */
export interface Catalog {
  /** Bumped by every change; instances reload when it moves. */
  revision: number;
  eventTypes: ReadonlyMap<string, Versioned<EventTypeDefinition>>;
  /** In display order. */
  quests: readonly Versioned<QuestDefinition>[];
  streaks: readonly Versioned<StreakDefinition>[];
}

/** Builds the lookup structure from the active rows (any order). */
export function buildCatalog(revision: number, active: readonly Versioned[]): Catalog {
  const eventTypes = new Map<string, Versioned<EventTypeDefinition>>();
  const quests: Versioned<QuestDefinition>[] = [];
  const streaks: Versioned<StreakDefinition>[] = [];
  for (const row of active) {
    const { definition } = row;
    if (definition.kind === 'event_type') eventTypes.set(definition.key, { ...row, definition });
    else if (definition.kind === 'quest') quests.push({ ...row, definition });
    else streaks.push({ ...row, definition });
  }
  const byOrder = (a: Versioned<QuestDefinition | StreakDefinition>, b: typeof a) =>
    a.definition.order - b.definition.order || a.definition.key.localeCompare(b.definition.key);
  quests.sort(byOrder);
  streaks.sort(byOrder);
  return { revision, eventTypes, quests, streaks };
}

/** A stored version as the loader reads it (db/queries/catalog.ts). */
export interface StoredDefinition {
  kind: string;
  key: string;
  version: number;
  definition: unknown;
  retired: boolean;
}

/**
 * The catalog from the newest stored version of each definition: retired
 * ones left out; one that no longer parses is left out and reported (it
 * entered through this same schema, so only a release that tightened the
 * schema can make one).
 */
export function parseCatalog(
  revision: number,
  newest: readonly StoredDefinition[],
): {
  catalog: Catalog;
  invalid: { kind: string; key: string; version: number; problem: string }[];
} {
  const active: Versioned[] = [];
  const invalid: { kind: string; key: string; version: number; problem: string }[] = [];
  for (const row of newest) {
    if (row.retired) continue;
    const parsed = DefinitionSchema.safeParse(row.definition);
    if (parsed.success && parsed.data.kind === row.kind && parsed.data.key === row.key) {
      active.push({ definition: parsed.data, version: row.version });
    } else {
      const problem = parsed.success
        ? 'kind or key differs from the row'
        : z.prettifyError(parsed.error);
      invalid.push({ kind: row.kind, key: row.key, version: row.version, problem });
    }
  }
  return { catalog: buildCatalog(revision, active), invalid };
}

/** A definition by its identity: kind and key. */
export function definitionId(kind: string, key: string): string {
  return `${kind}/${key}`;
}

/**
 * What in `active` names a definition that is not active (an event type a
 * quest or streak counts, a quest another quest needs), and quests that need
 * each other in a circle: each problem once, as a message. The admin API
 * refuses a change that leaves any (docs/CATALOG.md).
 */
export function referenceProblems(active: readonly Definition[]): string[] {
  const eventTypes = new Set(active.filter((d) => d.kind === 'event_type').map((d) => d.key));
  const quests = new Map(active.flatMap((d) => (d.kind === 'quest' ? [[d.key, d] as const] : [])));
  const problems: string[] = [];
  for (const d of active) {
    if (d.kind === 'streak' && !eventTypes.has(d.eventType)) {
      problems.push(`Streak "${d.key}" counts event type "${d.eventType}", which is not active`);
    }
    if (d.kind !== 'quest') continue;
    if (d.goal.kind === 'events' && !eventTypes.has(d.goal.eventType)) {
      problems.push(
        `Quest "${d.key}" counts event type "${d.goal.eventType}", which is not active`,
      );
    }
    if (d.goal.kind === 'quests') {
      for (const needed of d.goal.quests) {
        if (!quests.has(needed)) {
          problems.push(`Quest "${d.key}" needs quest "${needed}", which is not active`);
        }
      }
    }
  }
  // A quest of quests may not reach itself through others.
  const visiting = new Set<string>();
  const done = new Set<string>();
  const cycle = (key: string): boolean => {
    if (done.has(key)) return false;
    if (visiting.has(key)) return true;
    visiting.add(key);
    const goal = quests.get(key)?.goal;
    const found = goal?.kind === 'quests' && goal.quests.some(cycle);
    visiting.delete(key);
    done.add(key);
    return found;
  };
  for (const key of quests.keys()) {
    if (cycle(key)) problems.push(`Quest "${key}" needs itself through other quests`);
  }
  return problems;
}
