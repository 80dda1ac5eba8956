import { describe, expect, it } from 'vitest';
import { TOMBSTONE_ISSUER } from '../../../db/queries/accounts.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Finding a fan (by id, subject, handle and a handle's first letters) and a
 * fan's whole story, on both faces (docs/CATALOG.md, "Finding a fan").
 */
const { app, database } = useTestApp();

const admin = () => app.serviceToken('ops-console', 'admin');

async function get(path: string) {
  return app.request('GET', path, { token: await admin() });
}

let handleCounter = 0;
/** A handle no other test (or run on the same database) holds: letters, digits, `_`. */
function uniqueHandle(prefix: string): string {
  handleCounter += 1;
  return `${prefix}${process.pid.toString(36)}${Date.now().toString(36)}${handleCounter}`.slice(
    0,
    30,
  );
}

async function onboarded(body: Record<string, unknown> = {}) {
  const subject = uniqueSubject('fan');
  const token = await app.token(subject);
  const response = await app.request('POST', '/api/user/profile', { token, body });
  expect(response.status, response.text).toBe(201);
  return { subject, token, userId: response.body.data.user.id as string };
}

async function find(query: string, extra = '') {
  const response = await get(`/api/admin/fans?query=${encodeURIComponent(query)}${extra}`);
  expect(response.status, response.text).toBe(200);
  return response.body.data.fans as { id: string; matchedBy: string[] }[];
}

describe('adminFindFans', () => {
  it('finds a fan by id, by subject, by handle in any case with or without @, and by its first letters', async () => {
    const handle = uniqueHandle('Finder_');
    const fan = await onboarded({ handle, name: 'Fiona Finder' });
    const other = await onboarded({ handle: `${handle}x`.slice(0, 30) });
    // `_` would match any one character in a LIKE pattern: this fan must not match `Finder_…`.
    const lookalike = await onboarded({ handle: handle.replace('_', 'Z') });

    const byId = await find(fan.userId);
    expect(byId).toEqual([
      expect.objectContaining({
        id: fan.userId,
        subject: fan.subject,
        issuer: app.issuer.issuer,
        handle,
        name: 'Fiona Finder',
        points: expect.any(Number),
        bannedAt: null,
        onboardedAt: expect.any(String),
        matchedBy: ['id'],
      }),
    ]);
    expect((await find(fan.userId.toUpperCase())).map((f) => f.id)).toEqual([fan.userId]);

    expect(await find(fan.subject)).toEqual([
      expect.objectContaining({ id: fan.userId, matchedBy: ['subject'] }),
    ]);

    for (const typed of [handle, handle.toUpperCase(), `@${handle.toLowerCase()}`]) {
      const found = await find(typed);
      // The exact handle first, then the longer one starting with it.
      expect(found.map((f) => [f.id, f.matchedBy])).toEqual([
        [fan.userId, ['handle']],
        [other.userId, ['handle_prefix']],
      ]);
    }

    const prefix = await find(handle.slice(0, -2));
    expect(prefix.map((f) => f.id)).toEqual(expect.arrayContaining([fan.userId, other.userId]));
    expect(prefix.every((f) => f.matchedBy.includes('handle_prefix'))).toBe(true);
    // `_` in the query is a character, not LIKE's wildcard.
    const underscored = (await find(handle.slice(0, 7))).map((f) => f.id);
    expect(underscored).not.toContain(lookalike.userId);
    expect((await find(handle.replace('_', 'Z'))).map((f) => f.id)).toEqual([lookalike.userId]);
    // Not a handle's characters: tried as a subject only.
    expect(await find(`${handle.slice(0, 3)}%`)).toEqual([]);

    const limited = await find(handle.slice(0, -2), '&limit=1');
    expect(limited).toHaveLength(1);
  });

  it('finds a fan who never onboarded by subject, and none for what names no one', async () => {
    const subject = uniqueSubject('silent');
    const token = await app.token(subject);
    const me = await app.request('GET', '/api/user', { token });
    expect(me.status).toBe(200);
    expect(await find(subject)).toEqual([
      expect.objectContaining({ id: me.body.data.id, handle: null, onboardedAt: null, points: 0 }),
    ]);
    expect(await find(uniqueSubject('nobody'))).toEqual([]);
    expect(await find('00000000-0000-4000-8000-000000000000')).toEqual([]);
    // Another issuer's subjects are looked up only when asked for.
    expect(await find(subject, `&issuer=${encodeURIComponent('https://other.example')}`)).toEqual(
      [],
    );
  });

  it('never finds a deleted account: not by its old id, handle or subject, nor its tombstone, on either face', async () => {
    const handle = uniqueHandle('Gone_');
    const fan = await onboarded({ handle });
    const live = await onboarded({ handle: uniqueHandle('Stay_') });
    // An adjustment leaves a ledger entry and an audit row, so the deletion leaves a tombstone,
    // and the audit log names it: an operator can learn the tombstone's id.
    const reason = `Before leaving ${fan.subject}`;
    const adjusted = await app.request('POST', `/api/admin/fans/${fan.userId}/adjustments`, {
      token: await admin(),
      body: { id: uniqueSubject('adj'), points: 5, reason },
    });
    expect(adjusted.status, adjusted.text).toBe(200);
    const deleted = await app.request('DELETE', '/api/user', { token: fan.token });
    expect(deleted.status, deleted.text).toBe(200);
    const audit = await get('/api/admin/audit?action=fan.adjust&limit=100');
    expect(audit.status, audit.text).toBe(200);
    const row = (
      audit.body.data.entries as { targetKey: string; after: { reason?: string } }[]
    ).find((entry) => entry.after.reason === reason);
    const tombstoneId = row?.targetKey;
    expect(tombstoneId).toBeDefined();
    expect(tombstoneId).not.toBe(fan.userId);
    const tombstone = await database.db
      .selectFrom('users')
      .select(['issuer', 'subject'])
      .where('id', '=', tombstoneId!)
      .executeTakeFirstOrThrow();
    expect(tombstone.issuer).toBe(TOMBSTONE_ISSUER);

    const trpc = app.trpc(await admin());
    const searches: { query: string; issuer?: string }[] = [
      { query: fan.userId },
      { query: handle },
      { query: `@${handle.toUpperCase()}` },
      { query: handle.slice(0, -1) },
      { query: fan.subject },
      { query: tombstoneId! },
      { query: tombstone.subject, issuer: TOMBSTONE_ISSUER },
    ];
    for (const search of searches) {
      const extra = search.issuer ? `&issuer=${encodeURIComponent(search.issuer)}` : '';
      const rest = (await find(search.query, extra)).filter((f) => f.id !== live.userId);
      expect(rest, `REST ${search.query}`).toEqual([]);
      const typed = await trpc.adminFindFans.query(search);
      expect(typed.data.fans, `tRPC ${search.query}`).toEqual([]);
    }
    const missing = (id: string) => `No fan has the id "${id}"`;
    for (const id of [fan.userId, tombstoneId!]) {
      for (const path of [
        `/api/admin/fans/${id}`,
        `/api/admin/fans/${id}/points`,
        `/api/admin/fans/${id}/events`,
      ]) {
        const response = await get(path);
        expect(response.status, path).toBe(404);
        expect(response.body, path).toEqual({
          success: false,
          error: { code: 'NOT_FOUND', message: missing(id) },
        });
      }
      for (const read of [trpc.adminFan, trpc.adminFanPoints, trpc.adminFanEvents]) {
        await expect(read.query({ userId: id })).rejects.toMatchObject({
          message: missing(id),
          data: { errorCode: 'NOT_FOUND', httpStatus: 404 },
        });
      }
    }

    // The same reads still find a live fan.
    expect(await find(live.subject)).toEqual([
      expect.objectContaining({ id: live.userId, matchedBy: ['subject'] }),
    ]);
    expect((await trpc.adminFindFans.query({ query: live.userId })).data.fans).toEqual([
      expect.objectContaining({ id: live.userId, matchedBy: ['id'] }),
    ]);
    const story = await get(`/api/admin/fans/${live.userId}`);
    expect(story.status, story.text).toBe(200);
    expect((await trpc.adminFan.query({ userId: live.userId })).data.fan.id).toBe(live.userId);
  });

  it('refuses an empty or oversized query and a bad limit (400 naming the field)', async () => {
    for (const [query, field] of [
      ['query=', 'query'],
      ['query=%20%20', 'query'],
      [`query=${'x'.repeat(257)}`, 'query'],
      ['query=a%00b', 'query'],
      ['query=a%E2%80%AEb', 'query'],
      ['query=ann&issuer=x%00', 'issuer'],
      ['query=ann&limit=0', 'limit'],
      ['query=ann&limit=101', 'limit'],
      ['', 'query'],
    ] as const) {
      const response = await get(`/api/admin/fans?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
      expect(response.body.error.issues.map((i: { path: string }) => i.path)).toContain(field);
    }
  });

  it('answers the same over tRPC', async () => {
    const handle = uniqueHandle('Typed_');
    const fan = await onboarded({ handle });
    const trpc = app.trpc(await admin());
    const found = await trpc.adminFindFans.query({ query: `@${handle}` });
    expect(found.data.fans[0]).toMatchObject({ id: fan.userId, matchedBy: ['handle'] });
    for (const query of ['', 'a\u0000b', 'a\ud800b']) {
      await expect(trpc.adminFindFans.query({ query })).rejects.toMatchObject({
        data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 },
      });
    }
  });
});

describe('adminFan: a fan’s whole story', () => {
  it('shows profile, balance, boards with ranks, quests, streaks, ledger with sources and events with results', async () => {
    const team = `Story FC ${uniqueSubject('t')}`;
    const fan = await onboarded({ name: 'Sam Story', favoriteTeam: team });
    const service = await app.serviceToken('story-service');
    const sent = await app.request('POST', '/api/events', {
      token: service,
      body: { events: [{ id: uniqueSubject('ev'), subject: fan.subject, type: 'match_checkin' }] },
    });
    expect(sent.status, sent.text).toBe(200);
    const event = sent.body.data.results[0];
    expect(event.status).toBe('recorded');

    const story = await get(`/api/admin/fans/${fan.userId}`);
    expect(story.status, story.text).toBe(200);
    const data = story.body.data;
    expect(data.fan).toMatchObject({ id: fan.userId, subject: fan.subject, points: event.balance });
    expect(data.profile).toMatchObject({ name: 'Sam Story', favoriteTeam: team, handle: null });
    const allTime = data.boards.find((b: { period: string }) => b.period === 'all');
    expect(allTime).toMatchObject({
      season: null,
      points: event.balance,
      hidden: false,
      rank: expect.any(Number),
      teamRank: 1,
    });
    expect(data.boards.map((b: { period: string }) => b.period)).toEqual(
      expect.arrayContaining(['all', 'week', 'month']),
    );
    expect(data.quests.map((q: { id: string }) => q.id)).toContain('welcome');
    expect(Array.isArray(data.streaks)).toBe(true);
    const sources = data.ledger.entries.map((e: { source: { kind: string } }) => e.source.kind);
    expect(sources).toEqual(expect.arrayContaining(['event', 'quest']));
    expect(data.ledger.entries[0].source).toMatchObject({
      kind: 'event',
      clientId: 'story-service',
      eventId: sent.body.data.results[0].id,
    });
    expect(data.events).toEqual({
      entries: [
        {
          clientId: 'story-service',
          eventId: event.id,
          type: 'match_checkin',
          value: 1,
          occurredAt: expect.any(String),
          points: event.points,
          balance: event.balance,
          questsCompleted: event.questsCompleted,
          recordedAt: expect.any(String),
          reversedAt: null,
        },
      ],
      nextCursor: null,
    });

    // Banned: every entry hidden, with no rank; the points stay.
    const ban = await app.request('PUT', `/api/admin/fans/${fan.userId}/ban`, {
      token: await admin(),
      body: { banned: true, reason: 'story test' },
    });
    expect(ban.status, ban.text).toBe(200);
    const banned = (await get(`/api/admin/fans/${fan.userId}`)).body.data;
    expect(banned.fan.bannedAt).toBe(ban.body.data.bannedAt);
    for (const board of banned.boards) {
      expect(board).toMatchObject({ hidden: true, rank: null, teamRank: null });
    }
    expect(banned.fan.points).toBe(event.balance);
  });

  it('pages the ledger and the events, newest first, to the end', async () => {
    const fan = await onboarded();
    const service = await app.serviceToken('pager-service');
    const ids = [1, 2, 3].map(() => uniqueSubject('page'));
    for (const id of ids) {
      const sent = await app.request('POST', '/api/events', {
        token: service,
        body: { events: [{ id, subject: fan.subject, type: 'article_read' }] },
      });
      expect(sent.body.data.results[0].status, sent.text).toBe('recorded');
    }
    const seen: string[] = [];
    let path = `/api/admin/fans/${fan.userId}/events?limit=2`;
    for (;;) {
      const page = await get(path);
      expect(page.status, page.text).toBe(200);
      seen.push(...page.body.data.entries.map((e: { eventId: string }) => e.eventId));
      if (!page.body.data.nextCursor) break;
      path = `/api/admin/fans/${fan.userId}/events?limit=2&before=${page.body.data.nextCursor}`;
    }
    expect(seen).toEqual([...ids].reverse());

    const ledger: { id: string }[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(
        `/api/admin/fans/${fan.userId}/points?limit=1${cursor ? `&before=${cursor}` : ''}`,
      );
      expect(page.status, page.text).toBe(200);
      expect(page.body.data.entries.length).toBeLessThanOrEqual(1);
      ledger.push(...page.body.data.entries);
      cursor = page.body.data.nextCursor;
    } while (cursor);
    const whole = await app.request('GET', '/api/user/points?limit=100', { token: fan.token });
    expect(ledger.map((e) => e.id)).toEqual(
      whole.body.data.entries.map((e: { id: string }) => e.id),
    );
  });

  it('404 for no such fan, 400 for what is not a user id, on both faces', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const path of [
      `/api/admin/fans/${missing}`,
      `/api/admin/fans/${missing}/points`,
      `/api/admin/fans/${missing}/events`,
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    const bad = await get('/api/admin/fans/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.error.issues[0].path).toBe('userId');
    const badCursor = await get(`/api/admin/fans/${missing}/events?before=abc`);
    expect(badCursor.status).toBe(400);
    const trpc = app.trpc(await admin());
    await expect(trpc.adminFan.query({ userId: missing })).rejects.toMatchObject({
      data: { errorCode: 'NOT_FOUND', httpStatus: 404 },
    });
  });
});
