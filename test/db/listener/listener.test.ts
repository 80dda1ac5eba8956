import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../../db/database.js';
import { listenPostgres, type NotificationHandlers } from '../../../db/listener.js';
import { dataEvents, openSse } from '../../helpers/live.js';
import { holdsFor } from '../../helpers/waits.js';
import { startTestApp, uniqueSubject, type TestApp } from '../../helpers/test-app.js';
import {
  adminQuery,
  createTestDatabase,
  testDbKind,
  type TestDatabase,
  openPool,
} from '../../helpers/test-db.js';

/**
 * The LISTEN connection (db/listener.ts) losing its backend, on a real
 * PostgreSQL server: killed with pg_terminate_backend, or cut off for a while
 * by a TCP proxy in front of the server that hangs up on every connection (as
 * a load balancer whose server is down does), then forwards again. Each listener
 * connects with an application_name of its own, so pg_stat_activity counts
 * exactly its connections. PGlite listens on its one in-process session:
 * there is no connection to lose.
 */
const skip = testDbKind !== 'postgres';

/** Longer than the longest backoff between two attempts (RETRY_MAX_MS, 5 s). */
const LONGEST_RETRY_MS = 6_000;
const CHANNEL = 'listener_test';

describe.skipIf(skip)(
  `the LISTEN connection${skip ? ' (skipped: needs TEST_DATABASE_URL; PGlite listens in-process)' : ''}`,
  () => {
    let database: TestDatabase;
    const serverUrl = () => process.env.TEST_DATABASE_URL!.trim();

    let proxy: Proxy;

    beforeAll(async () => {
      database = await createTestDatabase();
      const server = new URL(database.databaseUrl!);
      proxy = await startProxy(server.hostname, Number(server.port || 5432));
    });
    afterAll(async () => {
      await proxy?.close();
      await database?.destroy();
    });

    /** The test database's URL, its connections named `name` in pg_stat_activity. */
    function namedUrl(name: string, through?: Proxy): string {
      const url = new URL(database.databaseUrl!);
      url.searchParams.set('application_name', name);
      if (through) {
        url.hostname = '127.0.0.1';
        url.port = String(through.port);
      }
      return url.toString();
    }

    async function connections(name: string): Promise<number> {
      const { rows } = await adminQuery(
        serverUrl(),
        `select count(*)::int as n from pg_stat_activity where application_name = '${name}'`,
      );
      return (rows[0] as { n: number }).n;
    }

    /** Kills every backend named `name`, as an administrator or a failover would. */
    async function terminate(name: string): Promise<void> {
      const { rows } = await adminQuery(
        serverUrl(),
        `select pg_terminate_backend(pid) as killed from pg_stat_activity where application_name = '${name}'`,
      );
      expect(rows).toEqual([{ killed: true }]);
    }

    async function notify(payload: string): Promise<void> {
      await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(database.db);
    }

    function recorder() {
      const seen = { notifications: [] as string[], errors: 0, reconnects: 0 };
      const handlers: NotificationHandlers = {
        onNotification: (payload) => seen.notifications.push(payload),
        onError: () => {
          seen.errors += 1;
        },
        onReconnect: () => {
          seen.reconnects += 1;
        },
      };
      return { seen, handlers };
    }

    it('a killed backend is replaced by exactly one connection, and each notification arrives once', async () => {
      const name = uniqueSubject('listen-kill');
      const { seen, handlers } = recorder();
      const unlisten = await listenPostgres(namedUrl(name), CHANNEL, handlers);
      try {
        expect(await connections(name)).toBe(1);
        await notify('before');
        await expect.poll(() => seen.notifications).toEqual(['before']);

        await terminate(name);
        await expect.poll(() => seen.reconnects, { timeout: 10_000 }).toBe(1);
        expect(seen.errors).toBe(1);
        expect(await connections(name)).toBe(1);
        await notify('after');
        await expect.poll(() => seen.notifications).toEqual(['before', 'after']);
      } finally {
        await unlisten();
      }
      await expect.poll(() => connections(name)).toBe(0);
    });

    it(
      'reconnect attempts that fail during an outage end in one connection, not one per failure',
      { timeout: 60_000 },
      async () => {
        const name = uniqueSubject('listen-outage');
        const { seen, handlers } = recorder();
        const unlisten = await listenPostgres(namedUrl(name, proxy), CHANNEL, handlers);
        try {
          expect(await connections(name)).toBe(1);
          proxy.down();
          try {
            // The loss, then three attempts hung up on (after 250, 500 and 1000 ms).
            await expect.poll(() => seen.errors, { timeout: 15_000 }).toBeGreaterThanOrEqual(4);
          } finally {
            proxy.up();
          }
          await expect.poll(() => seen.reconnects, { timeout: 15_000 }).toBe(1);
          // A second retry loop, had a failure started one, would connect within it.
          await holdsFor(
            'one reconnect, no second retry loop',
            LONGEST_RETRY_MS,
            () => seen.reconnects === 1,
          );
          expect(seen.reconnects).toBe(1);
          expect(await connections(name)).toBe(1);
          await notify('once');
          await expect.poll(() => seen.notifications).toEqual(['once']);
          await holdsFor(
            'the notification delivered once',
            200,
            () => seen.notifications.length === 1,
          );
          expect(seen.notifications).toEqual(['once']);
        } finally {
          await unlisten();
        }
        await expect.poll(() => connections(name)).toBe(0);
      },
    );

    it('stopped while it is retrying, it never connects again', { timeout: 60_000 }, async () => {
      const name = uniqueSubject('listen-stop');
      const { seen, handlers } = recorder();
      const unlisten = await listenPostgres(namedUrl(name, proxy), CHANNEL, handlers);
      proxy.down();
      try {
        await expect.poll(() => seen.errors, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
        await unlisten();
      } finally {
        proxy.up();
      }
      const errorsAtStop = seen.errors;
      await holdsFor(
        'no attempt after the stop',
        LONGEST_RETRY_MS,
        () => seen.reconnects === 0 && seen.errors === errorsAtStop,
      );
      expect(await connections(name)).toBe(0);
      expect(seen.reconnects).toBe(0);
      expect(seen.errors).toBe(errorsAtStop);
    });

    it('after the backend is killed, open streams end retryable and a resumed stream gets live events', async () => {
      const name = uniqueSubject('listen-hub');
      const handle: DatabaseHandle = await openPool(database, { listenUrl: namedUrl(name) });
      let app: TestApp | undefined;
      try {
        app = await startTestApp({
          database: { ...handle, databaseUrl: database.databaseUrl, dataDir: database.dataDir },
        } as never);
        expect(await connections(name)).toBe(1);
        const token = await app.token(uniqueSubject('relisten'));
        const auth = { authorization: `Bearer ${token}` };
        expect((await app.request('POST', '/api/user/profile', { token, body: {} })).status).toBe(
          201,
        );

        const first = await openSse(`${app.url}/trpc/myEvents`, auth);
        await first.waitFor((event) => event.event === 'connected');
        const team = await app.request('PATCH', '/api/user', {
          token,
          body: { favoriteTeam: 'Before FC' },
        });
        expect(team.status).toBe(200);
        await first.waitFor((event) => event.data.includes('pick_team'));
        const lastId = dataEvents(first).at(-1)!.id!;

        await terminate(name);
        const error = await first.waitFor((event) => event.event === 'serialized-error');
        expect(JSON.parse(error.data).data).toMatchObject({
          errorCode: 'UNAVAILABLE',
          httpStatus: 503,
        });
        await first.ended;
        await expect.poll(() => connections(name), { timeout: 10_000 }).toBe(1);

        const resumed = await openSse(`${app.url}/trpc/myEvents`, {
          ...auth,
          'last-event-id': lastId,
        });
        try {
          await resumed.waitFor((event) => event.event === 'connected');
          const claimed = `relisten_${Date.now().toString(36)}`;
          const patched = await app.request('PATCH', '/api/user', {
            token,
            body: { handle: claimed },
          });
          expect(patched.status).toBe(200);
          await resumed.waitFor((event) => event.data.includes('claim_handle'), 2_000);
          const ids = dataEvents(resumed).map((message) => BigInt(message.id!));
          expect(ids.length).toBeGreaterThan(0);
          expect(ids[0]! > BigInt(lastId)).toBe(true);
          expect(new Set(ids).size).toBe(ids.length);
          expect(await connections(name)).toBe(1);
        } finally {
          resumed.close();
        }
      } finally {
        await app?.close();
        await handle.close();
      }
      await expect.poll(() => connections(name)).toBe(0);
    });
  },
);

interface Proxy {
  port: number;
  /**
   * Cuts every connection through it and hangs up on new ones at once, as a
   * TCP load balancer in front of a server that is down does.
   */
  down(): void;
  /** Forwards new connections again. */
  up(): void;
  close(): Promise<void>;
}

/** A TCP proxy to host:port on a port of its own. */
async function startProxy(host: string, port: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let forwarding = true;
  const server = createServer((incoming) => {
    if (!forwarding) {
      incoming.destroy();
      return;
    }
    const outgoing = connect(port, host);
    for (const [socket, other] of [
      [incoming, outgoing],
      [outgoing, incoming],
    ] as const) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        other.destroy();
      });
    }
    incoming.pipe(outgoing).pipe(incoming);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    down() {
      forwarding = false;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      forwarding = true;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
