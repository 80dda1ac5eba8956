import { describe, expect, it } from 'vitest';
import { recordAudit } from '../../../db/queries/audit.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The audit log narrowed on the service by actor, action (one, or a family) and time range,
 * through both faces: GET /api/admin/audit and the typed tRPC client's adminAuditLog. The rows
 * are made by real admin calls from two admin clients.
 */
const { app } = useTestApp();

const token = (actor: string) => app.serviceToken(actor, 'admin');

async function get(actor: string, query: Record<string, string>) {
  const response = await app.request('GET', `/api/admin/audit?${new URLSearchParams(query)}`, {
    token: await token(actor),
  });
  return response;
}

async function entries(query: Record<string, string>) {
  const response = await get('ops-reader', query);
  expect(response.status, response.text).toBe(200);
  return response.body.data.entries as Array<{
    id: string;
    actor: string;
    action: string;
    at: string;
  }>;
}

async function onboardedFan() {
  const fanToken = await app.token(uniqueSubject('fan'));
  const made = await app.request('POST', '/api/user/profile', { token: fanToken, body: {} });
  expect(made.status, made.text).toBe(201);
  return made.body.data.user.id as string;
}

/**
 * Three changes by `alice` (ban, adjust, unban) then one by `bob` (ban), of one fan, each in a
 * later millisecond than the one before (the API shows times to the millisecond).
 */
async function history(alice: string, bob: string) {
  const userId = await onboardedFan();
  const as = async (actor: string, method: string, path: string, body: unknown) => {
    const response = await app.request(method, path, { token: await token(actor), body });
    expect(response.status, response.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3));
  };
  const fan = `/api/admin/fans/${userId}`;
  await as(alice, 'PUT', `${fan}/ban`, { banned: true, reason: 'spam' });
  await as(alice, 'POST', `${fan}/adjustments`, {
    id: uniqueSubject('adj'),
    points: 5,
    reason: 'x',
  });
  await as(alice, 'PUT', `${fan}/ban`, { banned: false, reason: 'appeal' });
  await as(bob, 'PUT', `${fan}/ban`, { banned: true, reason: 'again' });
  return userId;
}

describe('audit log filters', () => {
  it('narrows by actor and by one action or a family of actions, on both faces', async () => {
    const alice = uniqueSubject('alice');
    const bob = uniqueSubject('bob');
    const userId = await history(alice, bob);

    expect((await entries({ actor: alice })).map((e) => e.action)).toEqual([
      'fan.unban',
      'fan.adjust',
      'fan.ban',
    ]);
    expect((await entries({ actor: bob })).map((e) => [e.actor, e.action])).toEqual([
      [bob, 'fan.ban'],
    ]);
    expect((await entries({ actor: alice, action: 'fan.ban' })).map((e) => e.action)).toEqual([
      'fan.ban',
    ]);
    expect((await entries({ action: 'fan.ban' })).map((e) => e.actor)).toEqual([bob, alice]);
    expect(
      (await entries({ action: 'fan', targetKind: 'fan', targetKey: userId })).map((e) => e.action),
    ).toEqual(['fan.ban', 'fan.unban', 'fan.adjust', 'fan.ban']);
    expect(await entries({ actor: uniqueSubject('nobody') })).toEqual([]);
    expect(await entries({ action: 'definition' })).toEqual([]);

    // The tRPC face answers the same rows.
    const trpc = app.trpc(await token('ops-reader'));
    const viaTrpc = await trpc.adminAuditLog.query({ actor: alice, action: 'fan' });
    expect(viaTrpc.data.entries.map((e) => e.action)).toEqual([
      'fan.unban',
      'fan.adjust',
      'fan.ban',
    ]);
    const paged = await trpc.adminAuditLog.query({ actor: alice, limit: 2 });
    expect(paged.data.entries.map((e) => e.action)).toEqual(['fan.unban', 'fan.adjust']);
    const rest = await trpc.adminAuditLog.query({
      actor: alice,
      limit: 2,
      before: paged.data.nextCursor!,
    });
    expect(rest.data.entries.map((e) => e.action)).toEqual(['fan.ban']);
    expect(rest.data.nextCursor).toBeNull();
  });

  it('a family matches its own actions only (`_` is no wildcard)', async () => {
    const actor = uniqueSubject('wildcard');
    for (const action of ['webhook_endpoint.create', 'webhookXendpoint.create', 'fan_x.ban']) {
      await recordAudit(app.db, { actor, action, targetKind: 'fan', targetKey: 'k' });
    }
    expect((await entries({ actor, action: 'webhook_endpoint' })).map((e) => e.action)).toEqual([
      'webhook_endpoint.create',
    ]);
    expect((await entries({ actor, action: 'fan' })).map((e) => e.action)).toEqual([]);
    expect((await entries({ actor, action: 'fan_x' })).map((e) => e.action)).toEqual(['fan_x.ban']);
  });

  it('narrows by time: since is inclusive, until exclusive', async () => {
    const alice = uniqueSubject('alice');
    await history(alice, uniqueSubject('bob'));
    const all = await entries({ actor: alice });
    expect(all).toHaveLength(3);
    const [newest, middle, oldest] = all.map((e) => e.at);

    expect(oldest! < middle! && middle! < newest!).toBe(true);
    const since = await entries({ actor: alice, since: middle! });
    expect(since.map((e) => e.action)).toEqual(['fan.unban', 'fan.adjust']);
    const until = await entries({ actor: alice, until: middle! });
    expect(until.map((e) => e.action)).toEqual(['fan.ban']);
    const between = await entries({ actor: alice, since: middle!, until: newest! });
    expect(between.map((e) => e.action)).toEqual(['fan.adjust']);

    const later = new Date(Date.parse(newest!) + 1).toISOString();
    expect(await entries({ actor: alice, since: later })).toEqual([]);
    const before = new Date(Date.parse(oldest!) - 1).toISOString();
    expect(await entries({ actor: alice, until: before })).toEqual([]);
    expect(await entries({ actor: alice, since: before, until: later })).toHaveLength(3);

    const trpc = app.trpc(await token('ops-reader'));
    const window = await trpc.adminAuditLog.query({ actor: alice, since: before, until: later });
    expect(window.data.entries).toHaveLength(3);
  });

  it('refuses bad filters with VALIDATION_FAILED on both faces, and no admin scope', async () => {
    const bad: Array<Record<string, string>> = [
      { actor: 'a'.repeat(257) },
      { action: 'Fan.Ban' },
      { action: 'fan.ban.more' },
      { action: 'fan.%' },
      { since: 'yesterday' },
      { until: '2026-13-01T00:00:00Z' },
      { since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' },
      { since: '2026-01-01T00:00:00Z', until: '2026-01-01T00:00:00Z' },
    ];
    for (const query of bad) {
      const response = await get('ops-reader', query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_FAILED');
    }
    const trpc = app.trpc(await token('ops-reader'));
    await expect(
      trpc.adminAuditLog.query({ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' }),
    ).rejects.toMatchObject({ data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 } });
    await expect(trpc.adminAuditLog.query({ actor: '' })).rejects.toMatchObject({
      data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 },
    });
    await expect(trpc.adminAuditLog.query({ action: 'fan.*' })).rejects.toMatchObject({
      data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 },
    });

    const fan = await app.token(uniqueSubject('fan'));
    const refused = await app.request('GET', '/api/admin/audit?actor=x', { token: fan });
    expect(refused.status).toBe(403);
  });
});
