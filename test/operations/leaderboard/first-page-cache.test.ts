import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { createTestDatabase, testDbKind, type TestDatabase } from '../../helpers/test-db.js';
import { startTokenIssuer, type TokenIssuer } from '../../helpers/token-issuer.js';

/**
 * The shared first page (src/services/first-page.ts; docs/READS.md): two
 * instances on one database. A write on A is on A's first page at once, and
 * on B's within LEADERBOARD_FIRST_PAGE_CACHE_MS of B's read that filled it;
 * never later.
 */
const TTL_MS = 1_500;

describe(`the shared first page of a board, two instances, on ${testDbKind}`, () => {
  let database: TestDatabase;
  let issuer: TokenIssuer;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase();
    issuer = await startTokenIssuer();
    const env = { LEADERBOARD_FIRST_PAGE_CACHE_MS: String(TTL_MS) };
    a = await startTestApp({ database, issuer, env });
    b = await startTestApp({ database, issuer, env });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await issuer?.stop();
    await database?.destroy();
  });

  const handleOf = () => `fp${randomUUID().slice(0, 8)}`;

  async function onboard(app: TestApp, team: string, subject?: string): Promise<string> {
    const handle = handleOf();
    const response = await app.request('POST', '/api/user/profile', {
      token: await app.token(subject),
      body: { handle, favoriteTeam: team },
    });
    expect(response.status, response.text).toBe(201);
    return handle;
  }

  async function firstPage(app: TestApp, team: string, limit = 20): Promise<string[]> {
    const response = await app.request(
      'GET',
      `/api/leaderboard?team=${encodeURIComponent(team)}&limit=${limit}`,
      { token: await app.token() },
    );
    expect(response.status, response.text).toBe(200);
    return response.body.data.entries.map((entry: { handle: string }) => entry.handle);
  }

  it("shows a write on the writer's instance at once and on another within the bound, never later", async () => {
    const team = `FP ${randomUUID().slice(0, 8)}`;
    const first = await onboard(a, team);
    expect(await firstPage(b, team)).toEqual([first]);
    const filled = performance.now(); // B's page came from a read that started before this
    // A has the page too: its own write must not be served from it.
    expect(await firstPage(a, team)).toEqual([first]);

    const second = await onboard(a, team);
    expect(await firstPage(a, team)).toEqual([first, second]);
    // B still serves its page: shared, not read again.
    expect(await firstPage(b, team)).toEqual([first]);

    const reads: { sentAt: number; handles: string[] }[] = [];
    const deadline = filled + TTL_MS + 2_000;
    while (performance.now() < deadline) {
      const sentAt = performance.now();
      reads.push({ sentAt, handles: await firstPage(b, team) });
      if (sentAt > filled + TTL_MS + 200) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const late = reads.filter((read) => read.sentAt > filled + TTL_MS);
    expect(late.length).toBeGreaterThan(0);
    // Every read sent once the bound had passed shows the write.
    for (const read of late) expect(read.handles).toEqual([first, second]);
    // Once B shows it, it never shows the older page again.
    const seen = reads.findIndex((read) => read.handles.length === 2);
    expect(reads.slice(seen).every((read) => read.handles.length === 2)).toBe(true);
  });

  it("shows another service's award (an event, a reversal) on the recording instance's page at once", async () => {
    const team = `FP ${randomUUID().slice(0, 8)}`;
    const subject = `fp-fan-${randomUUID()}`;
    const first = await onboard(a, team);
    const second = await onboard(a, team, subject);
    expect(await firstPage(a, team)).toEqual([first, second]);
    const service = await a.serviceToken('fp-checkins');
    const event = { id: `fp-${randomUUID()}`, subject, type: 'match_checkin' };
    const recorded = await a.request('POST', '/api/events', {
      token: service,
      body: { events: [event] },
    });
    expect(recorded.body.data.results[0].status, recorded.text).toBe('recorded');
    expect(await firstPage(a, team)).toEqual([second, first]);
    const reversed = await a.request('POST', '/api/events/reversals', {
      token: service,
      body: { id: event.id },
    });
    expect(reversed.status, reversed.text).toBe(200);
    expect(await firstPage(a, team)).toEqual([first, second]);
  });

  it('serves every limit from one shared read: the same entries and cursors as a page read afresh', async () => {
    const team = `FP ${randomUUID().slice(0, 8)}`;
    const handles: string[] = [];
    for (let i = 0; i < 5; i += 1) handles.push(await onboard(a, team));
    const token = await b.token();
    const page = (limit: number) =>
      b.request('GET', `/api/leaderboard?team=${encodeURIComponent(team)}&limit=${limit}`, {
        token,
      });
    const full = await page(100);
    expect(full.body.data.entries.map((e: { handle: string }) => e.handle)).toEqual(handles);
    expect(full.body.data.nextCursor).toBeNull();
    for (const limit of [1, 2, 4, 5]) {
      const { body } = await page(limit);
      expect(body.data.entries).toEqual(full.body.data.entries.slice(0, limit));
      expect(body.data.nextCursor === null).toBe(limit >= 5);
      if (body.data.nextCursor !== null) {
        const next = await b.request(
          'GET',
          `/api/leaderboard?team=${encodeURIComponent(team)}&limit=100&cursor=${body.data.nextCursor}`,
          { token },
        );
        expect(next.body.data.entries).toEqual(full.body.data.entries.slice(limit));
      }
    }
  });
});
