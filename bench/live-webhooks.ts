/**
 * The webhook part of `npm run bench:live` (bench/live.ts): a receiver in the
 * bench's process that answers 204 and counts, and the throughput of the
 * service's deliveries to it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql, type Kysely } from 'kysely';
import { recordEvents } from '../db/queries/events.js';
import type { Database } from '../db/schema.js';
import { pool } from './live-clients.js';

export interface Receiver {
  url: string;
  /** Deliveries received so far. */
  readonly received: number;
  /** When the last one arrived (performance.now()). */
  readonly lastReceivedAt: number;
  close(): void;
}

export async function startReceiver(): Promise<Receiver> {
  let received = 0;
  let lastReceivedAt = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      lastReceivedAt = performance.now();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    get received() {
      return received;
    },
    get lastReceivedAt() {
      return lastReceivedAt;
    },
    close: () => server.close(),
  };
}

/**
 * Waits for the queue to drain, appends `events` events at once (10 per
 * fan) and reports events/s from the append to the last 2xx.
 */
export async function webhookThroughput(
  db: Kysely<Database>,
  receiver: Receiver,
  fans: Array<{ id: string }>,
  events: number,
  log: (message: string) => void,
) {
  log('webhooks: waiting for the queue to drain');
  const pendingCount = async () =>
    Number(
      (
        await sql<{ n: string }>`select count(*) as n from live_events
          where webhook_next_at is not null`.execute(db)
      ).rows[0]!.n,
    );
  for (let i = 0; (await pendingCount()) > 0 && i < 600; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const perUser = 10;
  const hookUsers = fans.slice(0, Math.ceil(events / perUser));
  const before = receiver.received;
  const appendedAt = performance.now();
  await pool(hookUsers, 10, (fan) =>
    db.transaction().execute((trx) =>
      recordEvents(
        trx,
        fan.id,
        Array.from({ length: perUser }, (_, k) => ({
          type: 'points_awarded',
          payload: { delta: 1, balance: k + 1, questId: null },
        })),
      ),
    ),
  );
  const target = before + hookUsers.length * perUser;
  for (let i = 0; receiver.received < target && i < 3_000; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (receiver.lastReceivedAt - appendedAt) / 1000;
  return {
    events: receiver.received - before,
    seconds: Math.round(seconds * 100) / 100,
    eventsPerSecond: Math.round((receiver.received - before) / seconds),
  };
}
