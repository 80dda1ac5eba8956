import { describe, expect, it } from 'vitest';
import { DEFAULT_CATALOG } from '../../db/migrations/20261126T1100_activity_catalog.js';
import { DefinitionSchema, parseCatalog } from '../../src/domain/catalog.js';

const quest = (over: Record<string, unknown>) => ({
  kind: 'quest',
  key: 'q',
  title: 'Q',
  goal: { kind: 'events', eventType: 'match_checkin' },
  tiers: [{ target: 1, points: 1 }],
  ...over,
});

function problems(definition: unknown): string[] {
  const parsed = DefinitionSchema.safeParse(definition);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('catalog definitions', () => {
  it('parse every row of the default catalog as stored', () => {
    for (const definition of DEFAULT_CATALOG) expect(problems(definition)).toEqual([]);
    const kinds = DEFAULT_CATALOG.map((d) => `${d.kind}:${d.key}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'event_type:match_checkin',
        'event_type:prediction_correct',
        'event_type:article_read',
        'streak:matchday_streak',
      ]),
    );
  });

  it('hold the activity issue’s default points and caps', () => {
    const types = Object.fromEntries(
      DEFAULT_CATALOG.filter((d) => d.kind === 'event_type').map((d) => [d.key, d]),
    );
    expect(types.match_checkin).toMatchObject({ points: 10, caps: { day: 5 } });
    expect(types.prediction_correct).toMatchObject({ points: 25, caps: {} });
    expect(types.article_read).toMatchObject({ points: 1, caps: { day: 20 } });
  });

  it.each([
    ['a bad key', quest({ key: 'Bad-Key' }), 'key'],
    ['an unknown field', quest({ colour: 'red' }), ''],
    [
      'tiers that do not increase',
      quest({
        tiers: [
          { target: 2, points: 1 },
          { target: 2, points: 1 },
        ],
      }),
      'tiers.1.target',
    ],
    ['a repeating profile goal', quest({ repeat: 'day', goal: { kind: 'onboarded' } }), 'repeat'],
    [
      'a target a profile goal never reaches',
      quest({ goal: { kind: 'fields_filled' }, tiers: [{ target: 9, points: 1 }] }),
      'tiers',
    ],
    [
      'a quest needing itself',
      quest({ goal: { kind: 'quests', quests: ['q'] }, tiers: [{ target: 1, points: 1 }] }),
      'goal.quests',
    ],
    [
      'points over the limit',
      { kind: 'event_type', key: 'e', title: 'E', points: 1_000_000, maxValue: 2 },
      'maxValue',
    ],
    ['negative points', { kind: 'event_type', key: 'e', title: 'E', points: -1 }, 'points'],
    [
      'a zero cap',
      { kind: 'event_type', key: 'e', title: 'E', points: 1, caps: { day: 0 } },
      'caps.day',
    ],
    [
      'streak milestones out of order',
      {
        kind: 'streak',
        key: 's',
        title: 'S',
        eventType: 'e',
        period: 'day',
        milestones: [
          { length: 3, points: 1 },
          { length: 2, points: 1 },
        ],
      },
      'milestones.1.length',
    ],
  ])('refuse %s', (_name, definition, path) => {
    const found = problems(definition);
    expect(found.length).toBeGreaterThan(0);
    expect(found.some((p) => p.startsWith(`${path}:`))).toBe(true);
  });

  it('load the newest version of each, leaving out retired and unparsable rows', () => {
    const { catalog, invalid } = parseCatalog(7, [
      {
        kind: 'event_type',
        key: 'a',
        version: 2,
        retired: false,
        definition: { kind: 'event_type', key: 'a', title: 'A', points: 3 },
      },
      {
        kind: 'event_type',
        key: 'b',
        version: 4,
        retired: true,
        definition: { kind: 'event_type', key: 'b', title: 'B', points: 3 },
      },
      {
        kind: 'event_type',
        key: 'c',
        version: 1,
        retired: false,
        definition: { kind: 'event_type', key: 'c', title: '', points: 3 },
      },
      {
        kind: 'quest',
        key: 'd',
        version: 1,
        retired: false,
        definition: { kind: 'event_type', key: 'd', title: 'D', points: 3 },
      },
    ]);
    expect(catalog.revision).toBe(7);
    expect([...catalog.eventTypes.keys()]).toEqual(['a']);
    expect(catalog.eventTypes.get('a')).toMatchObject({
      version: 2,
      definition: { points: 3, maxValue: 100, caps: {} },
    });
    expect(invalid.map((row) => row.key)).toEqual(['c', 'd']);
  });
});
