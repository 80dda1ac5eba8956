import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

/**
 * Points from activity and the game as data (docs/ACTIVITY.md, docs/CATALOG.md).
 *
 * - `catalog_definitions`: every version of every event type, quest and
 *   streak; a change appends a version, nothing is rewritten. The active
 *   definition of a (kind, key) is its newest version unless that one is
 *   retired. `catalog_revision` moves with every change, so instances know
 *   when to reload. The default catalog below is version 1 of its rows.
 * - `activity_events`: every event recorded from another service, unique per
 *   (client, id) — the sender's idempotency key — with the result it had.
 * - `user_quests` gains a period (repeating quests keep one row per period)
 *   and the number of tiers reached; `user_streaks` holds streaks.
 * - `points_ledger` gains where each entry came from; every existing entry is
 *   a quest award.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('catalog_definitions')
    .addColumn('kind', 'text', (col) =>
      col.notNull().check(sql`kind IN ('event_type', 'quest', 'streak')`),
    )
    .addColumn('key', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull().check(sql`version >= 1`))
    .addColumn('definition', 'jsonb', (col) => col.notNull())
    .addColumn('retired', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('changed_by', 'text', (col) => col.notNull())
    .addColumn('changed_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('catalog_definitions_pkey', ['kind', 'key', 'version'])
    .execute();
  await db.schema
    .createTable('catalog_revision')
    .addColumn('id', 'boolean', (col) =>
      col
        .primaryKey()
        .defaultTo(true)
        .check(sql`id`),
    )
    .addColumn('revision', 'bigint', (col) => col.notNull())
    .execute();
  await sql`INSERT INTO catalog_revision (id, revision) VALUES (true, 1)`.execute(db);

  const defaults = DEFAULT_CATALOG.map((definition) => ({
    kind: definition.kind,
    key: definition.key,
    definition: JSON.stringify(definition),
  }));
  await sql`
    INSERT INTO catalog_definitions (kind, key, version, definition, changed_by)
    SELECT d.kind, d.key, 1, d.definition::jsonb, 'default-catalog'
    FROM jsonb_to_recordset(${JSON.stringify(defaults)}::jsonb) AS d(kind text, key text, definition text)`.execute(
    db,
  );

  await db.schema
    .createTable('activity_events')
    .addColumn('id', 'bigint', (col) => col.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('client_id', 'text', (col) => col.notNull())
    .addColumn('event_id', 'text', (col) => col.notNull())
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('type_version', 'integer', (col) => col.notNull())
    .addColumn('value', 'integer', (col) => col.notNull().check(sql`value >= 1`))
    .addColumn('occurred_at', 'timestamptz', (col) => col.notNull())
    .addColumn('body_hash', 'text', (col) => col.notNull())
    .addColumn('points', 'integer', (col) => col.notNull())
    .addColumn('balance_after', 'integer', (col) => col.notNull())
    .addColumn('quests_completed', 'jsonb', (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('recorded_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('reversed_at', 'timestamptz')
    .addUniqueConstraint('activity_events_client_event_key', ['client_id', 'event_id'])
    .execute();
  // Caps: a fan's units of one type in a window, counting what was not reversed.
  await sql`
    CREATE INDEX activity_events_usage_idx
    ON activity_events (user_id, type, occurred_at) INCLUDE (value)
    WHERE reversed_at IS NULL`.execute(db);

  await db.schema
    .createTable('user_streaks')
    .addColumn('user_id', 'uuid', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('streak_id', 'text', (col) => col.notNull())
    .addColumn('current', 'integer', (col) => col.notNull())
    .addColumn('best', 'integer', (col) => col.notNull())
    .addColumn('last_period_start', 'timestamptz')
    .addColumn('run_started_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('user_streaks_pkey', ['user_id', 'streak_id'])
    .execute();

  await sql`ALTER TABLE user_quests
    ADD COLUMN period text NOT NULL DEFAULT '',
    ADD COLUMN tiers_reached integer NOT NULL DEFAULT 0`.execute(db);
  await sql`UPDATE user_quests SET tiers_reached = 1 WHERE status = 'completed'`.execute(db);
  // A completed quest has reached every tier, so at least one.
  await sql`ALTER TABLE user_quests ADD CONSTRAINT user_quests_tiers_check
    CHECK (tiers_reached >= 0 AND (status = 'in_progress' OR tiers_reached >= 1))`.execute(db);
  await sql`ALTER TABLE user_quests DROP CONSTRAINT user_quests_pkey,
    ADD CONSTRAINT user_quests_pkey PRIMARY KEY (user_id, quest_id, period)`.execute(db);

  await sql`ALTER TABLE points_ledger
    ADD COLUMN source text NOT NULL DEFAULT 'quest'
      CHECK (source IN ('quest', 'event', 'reversal', 'streak', 'adjustment')),
    ADD COLUMN source_detail jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE points_ledger DROP COLUMN source_detail, DROP COLUMN source`.execute(db);
  await sql`DELETE FROM user_quests WHERE period <> ''`.execute(db);
  await sql`ALTER TABLE user_quests DROP CONSTRAINT user_quests_pkey,
    ADD CONSTRAINT user_quests_pkey PRIMARY KEY (user_id, quest_id),
    DROP COLUMN tiers_reached, DROP COLUMN period`.execute(db);
  await db.schema.dropTable('user_streaks').execute();
  await db.schema.dropTable('activity_events').execute();
  await db.schema.dropTable('catalog_revision').execute();
  await db.schema.dropTable('catalog_definitions').execute();
}

/**
 * The default catalog as of this migration: today's five profile quests
 * exactly as they were defined in code, the three event types of the
 * activity issue, a daily and a weekly quest, and a streak of match-day
 * check-ins. Operators change it from here through the admin API.
 */
export const DEFAULT_CATALOG = [
  {
    kind: 'event_type',
    key: 'match_checkin',
    title: 'Match check-in',
    description: 'Checked in at a match.',
    points: 10,
    maxValue: 1,
    caps: { day: 5 },
  },
  {
    kind: 'event_type',
    key: 'prediction_correct',
    title: 'Correct prediction',
    description: 'Predicted a result correctly.',
    points: 25,
    maxValue: 1,
    caps: {},
  },
  {
    kind: 'event_type',
    key: 'article_read',
    title: 'Article read',
    description: 'Read an article (value: how many).',
    points: 1,
    maxValue: 20,
    caps: { day: 20 },
  },
  {
    kind: 'quest',
    key: 'welcome',
    title: 'Welcome aboard',
    description: 'Finish onboarding.',
    order: 10,
    repeat: 'once',
    goal: { kind: 'onboarded' },
    tiers: [{ target: 1, points: 100 }],
  },
  {
    kind: 'quest',
    key: 'claim_handle',
    title: 'Claim your handle',
    description: 'Pick a unique handle.',
    order: 20,
    repeat: 'once',
    goal: { kind: 'field_set', field: 'handle' },
    tiers: [{ target: 1, points: 25 }],
  },
  {
    kind: 'quest',
    key: 'pick_team',
    title: 'Pick your team',
    description: 'Set your favorite team.',
    order: 30,
    repeat: 'once',
    goal: { kind: 'field_set', field: 'favoriteTeam' },
    tiers: [{ target: 1, points: 25 }],
  },
  {
    kind: 'quest',
    key: 'name_rival',
    title: 'Name your rival',
    description: 'Set the rival team you love to beat (PATCH /api/user).',
    order: 40,
    repeat: 'once',
    goal: { kind: 'field_set', field: 'rivalTeam' },
    tiers: [{ target: 1, points: 25 }],
  },
  {
    kind: 'quest',
    key: 'complete_profile',
    title: 'Complete your profile',
    description: 'Fill in all 8 profile fields.',
    order: 50,
    repeat: 'once',
    goal: { kind: 'fields_filled' },
    tiers: [{ target: 8, points: 100 }],
  },
  {
    kind: 'quest',
    key: 'daily_reader',
    title: 'Daily reader',
    description: 'Read 3 articles today.',
    order: 60,
    repeat: 'day',
    goal: { kind: 'events', eventType: 'article_read', measure: 'sum' },
    tiers: [{ target: 3, points: 10 }],
  },
  {
    kind: 'quest',
    key: 'matchday_regular',
    title: 'Match-day regular',
    description: 'Check in at 2 matches this week.',
    order: 70,
    repeat: 'week',
    goal: { kind: 'events', eventType: 'match_checkin', measure: 'count' },
    tiers: [{ target: 2, points: 30 }],
  },
  {
    kind: 'streak',
    key: 'matchday_streak',
    title: 'Match-day streak',
    description: 'Check in at a match every week.',
    order: 10,
    eventType: 'match_checkin',
    period: 'week',
    milestones: [
      { length: 3, points: 30 },
      { length: 5, points: 50 },
      { length: 10, points: 100 },
    ],
  },
];
