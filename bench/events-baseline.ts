/**
 * The baseline of `npm run bench:events` (issue 28): the least correct work
 * for `POST /api/events`. `node:http`, the same jose ES256 verification as
 * the other bare servers (bench/bare.ts: same JWKS over HTTP, and the token
 * must hold `events:write`), the body parsed with JSON.parse and checked
 * only as far as the SQL needs (1–100 events, string id and subject, a type
 * of the default catalog, a whole value ≥ 1), then ONE statement per batch
 * through `pg` (pool of 10), which is its transaction:
 *
 * - per event, an INSERT into its ledger whose primary key (client id, event
 *   id) is the idempotency key (ON CONFLICT DO NOTHING: a resent event is a
 *   duplicate and awards nothing);
 * - per fan of the batch, the balance moved by what was inserted for them
 *   (an upsert: a fan seen for the first time gets a balance).
 *
 * It answers 200 with one result per event, in order: `recorded` or
 * `duplicate`, and the fan's balance after the batch. No catalog rules
 * (caps, quests, streaks), boards, ranks, seasons, outbox, version guard,
 * logging or rate limit. Its tables are its own, in the schema
 * BASELINE_SCHEMA, which bench/events.ts creates and fills with the seeded
 * fans (a balance and a ledger row each, so its indexes are of the board's
 * size).
 *
 * With BASELINE_EFFECTS=1 it is the **floor** of `bench:events -- --floor`:
 * the same, plus the rows issue 28's item 5 asks every award to move in its
 * own transaction, written set-based by the same one statement per batch
 * and with none of their logic: per fan, its entries on three boards (all
 * time, this week, this month) moved by what was inserted, and per board the
 * entries' count cells of the old and the new score (4 shards by fan, merged
 * by cell: the least a count-based rank needs; the service keeps 7 levels
 * and the team's counts too); per event a `points_awarded` outbox row and
 * per fan a `rank_changed` one. No NOTIFY, no caps, quests, streaks or
 * version guard. Its tables are in the schema BASELINE_SCHEMA too, filled
 * by bench/events.ts with the fans' all-time entries and their counts.
 *
 * Raw SQL through `pg` is on purpose: this file is the comparison, not the
 * service.
 *
 * Env: PORT, DATABASE_URL, AUTH_ISSUER, AUTH_JWKS_URL, BASELINE_SCHEMA,
 * BASELINE_EFFECTS.
 */
import { createServer, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { send, serviceTokenVerifier } from './bare.js';

const env = process.env;
const schema = env.BASELINE_SCHEMA ?? 'bench_events';
const verify = serviceTokenVerifier(env, 'events:write');
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 10 });
/** The default catalog's points per unit (db/migrations/20261126T1100_activity_catalog.ts). */
const POINTS: Record<string, number> = {
  match_checkin: 10,
  prediction_correct: 25,
  article_read: 1,
};
const MAX_EVENTS = 100;

const effects = env.BASELINE_EFFECTS === '1';

/** Per event the ledger insert (the idempotency key), per fan the balance moved. */
const RECORDED = `
  input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::integer[]) AS t(event_id, subject, points)
  ), inserted AS (
    INSERT INTO ${schema}.ledger (client_id, event_id, subject, points)
    SELECT $1, event_id, subject, points FROM input
    ON CONFLICT (client_id, event_id) DO NOTHING
    RETURNING event_id, subject, points
  ), credited AS (
    INSERT INTO ${schema}.balances AS b (subject, balance)
    SELECT subject, sum(points) FROM inserted GROUP BY subject ORDER BY subject
    ON CONFLICT (subject) DO UPDATE SET balance = b.balance + excluded.balance
    RETURNING subject, balance
  )`;
const ANSWER = `
  SELECT i.event_id, c.balance::text AS balance FROM inserted i JOIN credited c USING (subject)`;

const BASELINE_STATEMENT = `WITH ${RECORDED} ${ANSWER}`;

/** The baseline's statement and the effects of item 5, all data-modifying CTEs (each runs). */
const FLOOR_STATEMENT = `
  WITH ${RECORDED}, per_fan AS (
    SELECT subject, sum(points)::bigint AS points FROM inserted GROUP BY subject
  ), moved AS (
    INSERT INTO ${schema}.entries AS e (board, subject, points)
    SELECT b.board, f.subject, f.points FROM per_fan f CROSS JOIN unnest($5::text[]) AS b(board)
    ORDER BY 1, 2
    ON CONFLICT (board, subject) DO UPDATE SET points = e.points + excluded.points
    RETURNING board, subject, points, xmax = 0 AS created
  ), counted AS (
    INSERT INTO ${schema}.counts AS c (board, score, shard, n)
    SELECT board, score, abs(hashtext(subject)) % 4, sum(n) FROM (
      SELECT m.board, m.subject, m.points - f.points AS score, -1 AS n
      FROM moved m JOIN per_fan f USING (subject) WHERE NOT m.created
      UNION ALL SELECT board, subject, points, 1 FROM moved
    ) AS d
    GROUP BY board, score, abs(hashtext(subject)) % 4 HAVING sum(n) <> 0
    ORDER BY 1, 2, 3
    ON CONFLICT (board, score, shard) DO UPDATE SET n = c.n + excluded.n
    RETURNING 1
  ), announced AS (
    INSERT INTO ${schema}.outbox (subject, type, payload)
    SELECT subject, 'points_awarded', jsonb_build_object('eventId', event_id, 'points', points)
    FROM inserted
    UNION ALL
    SELECT subject, 'rank_changed', jsonb_build_object('points', balance) FROM credited
    RETURNING 1
  ) ${ANSWER}`;

/** The boards an award of `now` moves: all time, its week and its month (names only). */
function boardsOf(now: Date): string[] {
  const week = Math.floor((now.getTime() / 86_400_000 + 3) / 7);
  return ['all', `week:${week}`, `month:${now.toISOString().slice(0, 7)}`];
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

interface Event {
  id: string;
  subject: string;
  points: number;
}

function parseBatch(text: string): Event[] {
  let body: { events?: unknown };
  try {
    body = JSON.parse(text) as { events?: unknown };
  } catch {
    throw new HttpError(400, 'not JSON');
  }
  const { events } = body;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_EVENTS) {
    throw new HttpError(400, `events must hold 1–${MAX_EVENTS} events`);
  }
  return events.map(
    (event: { id?: unknown; subject?: unknown; type?: unknown; value?: unknown }) => {
      const value = event.value ?? 1;
      const points = POINTS[String(event.type)];
      if (
        typeof event.id !== 'string' ||
        typeof event.subject !== 'string' ||
        points === undefined ||
        !Number.isSafeInteger(value) ||
        (value as number) < 1
      ) {
        throw new HttpError(400, 'a malformed event');
      }
      return { id: event.id, subject: event.subject, points: points * (value as number) };
    },
  );
}

/** The batch's one statement; again on a deadlock (two batches moving the same rows). */
async function record(clientId: string, events: Event[]) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const values = [
        clientId,
        events.map((e) => e.id),
        events.map((e) => e.subject),
        events.map((e) => e.points),
      ];
      const { rows } = await pool.query<{ event_id: string; balance: string }>(
        effects ? FLOOR_STATEMENT : BASELINE_STATEMENT,
        effects ? [...values, boardsOf(new Date())] : values,
      );
      return new Map(rows.map((row) => [row.event_id, Number(row.balance)]));
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt >= 5) throw error;
    }
  }
}

const server = createServer((req, res) => {
  void (async () => {
    try {
      if (req.method !== 'POST' || req.url !== '/api/events') throw new HttpError(404, 'no route');
      const header = req.headers.authorization ?? '';
      if (!header.startsWith('Bearer ')) throw new HttpError(401, 'no token');
      let clientId: string | undefined;
      try {
        clientId = await verify(header.slice(7));
      } catch {
        throw new HttpError(401, 'bad token');
      }
      if (!clientId) throw new HttpError(403, 'not an events:write service token');
      const events = parseBatch(await readBody(req));
      const recorded = await record(clientId, events);
      // The fan's balance after the batch, for a duplicate too (the least work: no per-event history).
      const balances = new Map<string, number>();
      for (const event of events) {
        const balance = recorded.get(event.id);
        if (balance !== undefined) balances.set(event.subject, balance);
      }
      send(res, 200, {
        success: true,
        data: {
          results: events.map((event) => ({
            id: event.id,
            status: recorded.has(event.id) ? 'recorded' : 'duplicate',
            points: recorded.has(event.id) ? event.points : 0,
            balance: balances.get(event.subject) ?? null,
          })),
        },
      });
    } catch (error) {
      const status = error instanceof HttpError ? error.status : 500;
      if (status === 500) process.stderr.write(`${String(error)}\n`);
      send(res, status, { success: false, error: { message: (error as Error).message } });
    }
  })();
});

server.listen(Number(env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
});
