import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../db/schema.js';
import { fullSortRanks } from './consistency.js';
import { reader, type Face } from './reads.js';
import type { TestApp } from './test-app.js';

/**
 * Batches of events as a sending service posts them, and the checks the
 * batch tests of the write engine make after them (docs/ACTIVITY.md):
 * what each event answered, what the database holds of it, and the ranks.
 */

export interface SentEvent {
  id: string;
  subject: string;
  type: string;
  value?: number;
  occurredAt?: string;
}

export type EventResult =
  | {
      id: string;
      status: 'recorded' | 'duplicate';
      points: number;
      balance: number;
      questsCompleted: unknown[];
      reversed: boolean;
    }
  | { id: string; status: 'rejected'; error: { code: string; message: string } };

/**
 * Posts one batch on `face`: REST (`POST /api/events`, checked against
 * openapi.json) or the typed tRPC client. Expects 200 and one result per
 * event, in the order sent.
 */
export async function sendBatch(
  app: TestApp,
  token: string,
  events: SentEvent[],
  face: Face = 'rest',
): Promise<EventResult[]> {
  let results: EventResult[];
  if (face === 'rest') {
    const response = await app.request('POST', '/api/events', { token, body: { events } });
    if (response.status !== 200) throw new Error(`events: ${response.status} ${response.text}`);
    results = response.body.data.results;
  } else {
    const answer = await app.trpc(token).recordEvents.mutate({ events });
    results = answer.data.results as EventResult[];
  }
  expect(results.map((result) => result.id)).toEqual(events.map((event) => event.id));
  return results;
}

/** What a `duplicate` must repeat of the original `recorded` answer: all but the status. */
export function outcome(result: EventResult): unknown {
  const { status: _status, ...rest } = result;
  return rest;
}

/**
 * Rows per event id of `clientId` among `ids`: `activity_events` rows and
 * their award's ledger entries (key `event:<client>:<id>`). Exactly once
 * means 1 and 1 for a recorded id, 0 and 0 for one never recorded.
 */
export async function storedCounts(
  db: Kysely<Database>,
  clientId: string,
  ids: string[],
): Promise<Map<string, { events: number; ledger: number }>> {
  const { rows } = await sql<{ id: string; events: string; ledger: string }>`
    SELECT i.id,
           (SELECT count(*) FROM activity_events a
             WHERE a.client_id = ${clientId} AND a.event_id = i.id)::text AS events,
           (SELECT count(*) FROM points_ledger l
             WHERE l.idempotency_key = 'event:' || ${clientId} || ':' || i.id)::text AS ledger
    FROM unnest(${ids}::text[]) AS i(id)`.execute(db);
  return new Map(
    rows.map((row) => [row.id, { events: Number(row.events), ledger: Number(row.ledger) }]),
  );
}

/** Expects every id of `recorded` stored exactly once and every other id of `ids` not at all. */
export async function expectExactlyOnce(
  db: Kysely<Database>,
  clientId: string,
  ids: string[],
  recorded: Set<string>,
): Promise<void> {
  const counts = await storedCounts(db, clientId, ids);
  const wrong = ids.filter((id) => {
    const want = recorded.has(id) ? 1 : 0;
    const got = counts.get(id)!;
    return got.events !== want || got.ledger !== want;
  });
  expect(
    wrong.map(
      (id) => `${id}: ${JSON.stringify(counts.get(id))}, answered recorded: ${recorded.has(id)}`,
    ),
  ).toEqual([]);
}

/**
 * Every fan of `tokens` reads their own rank, global and on their team's
 * board, alternately from each app and face: each equals the full SQL sort.
 */
export async function expectServedRanksAreTheFullSort(
  db: Kysely<Database>,
  apps: TestApp[],
  tokens: string[],
): Promise<void> {
  const expected = await fullSortRanks(db);
  for (const [i, token] of tokens.entries()) {
    const read = reader(apps[i % apps.length]!, i % 2 === 0 ? 'rest' : 'trpc');
    const me = await read('leaderboardAroundMe', token, { radius: 1 });
    if (!me.ok) throw new Error(`leaderboardAroundMe: ${me.status} ${me.code}`);
    const want = expected.get(me.data.entry.userId);
    expect(want, `${me.data.entry.userId} is on the board`).toBeDefined();
    expect(me.data.entry.rank).toBe(want!.global);
    for (const neighbour of [...me.data.above, ...me.data.below]) {
      expect(neighbour.rank).toBe(expected.get(neighbour.userId)!.global);
    }
    if (want!.teamKey !== null) {
      const team = await read('leaderboardAroundMe', token, { radius: 0, team: want!.teamKey });
      if (!team.ok) throw new Error(`team leaderboardAroundMe: ${team.status} ${team.code}`);
      expect(team.data.entry.rank).toBe(want!.team);
    }
  }
}
