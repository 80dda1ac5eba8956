import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/test-app.js';

/**
 * A definition's history a page at a time, PATCH for partial changes, and
 * validation problems named by their field path (docs/CATALOG.md, "Admin
 * API"), on REST and tRPC.
 */
const { app } = useTestApp();

let keyCounter = 0;
function uniqueKey(prefix: string): string {
  keyCounter += 1;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${keyCounter}`;
}

const admin = () => app.serviceToken('ops-console', 'admin');

async function call(method: string, path: string, body?: unknown) {
  return app.request(method, path, { token: await admin(), body });
}

/** An event type with every optional field set away from its default, at `versions` versions. */
async function eventType(versions = 1) {
  const key = uniqueKey('derby');
  const type = {
    kind: 'event_type',
    key,
    title: 'Derby check-in',
    description: 'At the stadium for the derby.',
    points: 40,
    maxValue: 3,
    caps: { day: 2, week: 5 },
  };
  const created = await call('POST', '/api/admin/definitions', { definition: type });
  expect(created.status, created.text).toBe(201);
  for (let version = 1; version < versions; version += 1) {
    const updated = await call('PUT', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: version,
      definition: { ...type, points: 40 + version },
    });
    expect(updated.status, updated.text).toBe(200);
  }
  return { key, type };
}

async function storedVersions(key: string) {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM catalog_definitions WHERE key = ${key}`.execute(app.db);
  return Number(rows[0]!.n);
}

const issuePaths = (response: { body: any }) =>
  (response.body.error.issues ?? []).map((i: any) => i.path);

describe('a definition’s history', () => {
  it('is paged over REST: limit versions a page, newest first, the cursor reading on to the oldest', async () => {
    const { key } = await eventType(5);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const page = await call('GET', `/api/admin/definitions/event_type/${key}?limit=2${query}`);
      expect(page.status, page.text).toBe(200);
      expect(page.body.data.versions.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.versions.map((v: any) => v.version));
      cursor = page.body.data.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    expect(pages).toBe(3);
  });

  it('is paged over tRPC the same way, 20 versions by default', async () => {
    const { key } = await eventType(22);
    const client = app.trpc(await admin());
    const first = await client.adminDefinitionHistory.query({ kind: 'event_type', key });
    expect(first.data.versions.map((v) => v.version)).toEqual(
      Array.from({ length: 20 }, (_, i) => 22 - i),
    );
    expect(first.data.nextCursor).toEqual(expect.any(String));
    const rest = await client.adminDefinitionHistory.query({
      kind: 'event_type',
      key,
      cursor: first.data.nextCursor!,
    });
    expect(rest.data.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(rest.data.nextCursor).toBeNull();
    expect(rest.data.versions[1]!.definition).toMatchObject({
      points: 40,
      title: 'Derby check-in',
    });
  });

  it('refuses a cursor it did not give out (400 naming cursor), and a definition never defined is 404', async () => {
    const { key } = await eventType(1);
    const points = Buffer.from(JSON.stringify(['pts', '12'])).toString('base64url');
    for (const cursor of ['nope', points, Buffer.from('["def",0]').toString('base64url')]) {
      const refused = await call(
        'GET',
        `/api/admin/definitions/event_type/${key}?cursor=${cursor}`,
      );
      expect(refused.status, refused.text).toBe(400);
      expect(issuePaths(refused)).toEqual(['cursor']);
    }
    const def = (version: number) =>
      Buffer.from(JSON.stringify(['def', version])).toString('base64url');
    const past = await call('GET', `/api/admin/definitions/event_type/${key}?cursor=${def(1)}`);
    expect(past.status, past.text).toBe(200);
    expect(past.body.data).toEqual({ versions: [], nextCursor: null });
    const missing = `/api/admin/definitions/event_type/${uniqueKey('never')}`;
    expect((await call('GET', missing)).status).toBe(404);
    expect((await call('GET', `${missing}?cursor=${def(5)}`)).status).toBe(404);
  });
});

describe('PATCH of a definition', () => {
  it('changes the fields sent and keeps every other one as it was (REST)', async () => {
    const { key, type } = await eventType(1);
    const patched = await call('PATCH', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 1,
      definition: { points: 50 },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({ version: 2, retired: false });
    expect(patched.body.data.definition).toEqual({ ...type, points: 50 });
    const stale = await call('PATCH', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 1,
      definition: { title: 'Too late' },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('DEFINITION_CONFLICT');
    expect(await storedVersions(key)).toBe(2);
    const audit = await call(
      'GET',
      `/api/admin/audit?targetKind=definition&targetKey=event_type/${key}`,
    );
    expect(audit.body.data.entries[0]).toMatchObject({
      action: 'definition.update',
      before: { version: 1, definition: { points: 40 } },
      after: { version: 2, definition: { ...type, points: 50 } },
    });
  });

  it('changes the fields sent and keeps every other one as it was (tRPC)', async () => {
    const { key, type } = await eventType(1);
    const client = app.trpc(await admin());
    const patched = await client.adminPatchDefinition.mutate({
      kind: 'event_type',
      key,
      expectedVersion: 1,
      definition: { caps: { day: 1 }, description: 'Derby day only.' },
    });
    expect(patched.data.definition).toEqual({
      ...type,
      caps: { day: 1 },
      description: 'Derby day only.',
    });
    await expect(
      client.adminPatchDefinition.mutate({
        kind: 'event_type',
        key,
        expectedVersion: 2,
        definition: { points: -1 },
      }),
    ).rejects.toMatchObject({
      data: { errorCode: 'VALIDATION_FAILED', httpStatus: 400 },
      message: expect.stringContaining('definition.points'),
    });
    expect(await storedVersions(key)).toBe(2);
  });

  it.each([
    ['a bad value', { points: -1 }, 'definition.points'],
    ['a field of another kind', { goal: { kind: 'onboarded' } }, 'definition.goal'],
    ['the key', { key: 'renamed' }, 'definition.key'],
    ['an unknown field', { pionts: 5 }, 'definition.pionts'],
    ['nothing to change', {}, 'definition'],
    // Only the definition as changed breaks this rule: 40 points × 30,000 > 1,000,000.
    ['a change that breaks a rule of the whole', { maxValue: 30_000 }, 'definition.maxValue'],
  ])('refuses %s with a 400 naming the field, and writes nothing', async (_n, patch, path) => {
    const { key } = await eventType(1);
    const refused = await call('PATCH', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 1,
      definition: patch,
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_FAILED');
    expect(issuePaths(refused)).toContain(path);
    expect(refused.body.error.message).toContain(path);
    expect(await storedVersions(key)).toBe(1);
  });

  it('of a definition never defined is 404', async () => {
    const missing = await call('PATCH', `/api/admin/definitions/quest/${uniqueKey('never')}`, {
      expectedVersion: 1,
      definition: { title: 'Nothing' },
    });
    expect(missing.status).toBe(404);
  });
});

describe('PUT of a definition', () => {
  it('names each missing or bad field of a partial body, on both faces', async () => {
    const { key } = await eventType(1);
    const partial = { kind: 'event_type', key, points: 50, maxValue: 0 };
    const refused = await call('PUT', `/api/admin/definitions/event_type/${key}`, {
      expectedVersion: 1,
      definition: partial,
    });
    expect(refused.status, refused.text).toBe(400);
    expect(issuePaths(refused)).toEqual(
      expect.arrayContaining(['definition.title', 'definition.maxValue']),
    );
    expect(refused.body.error.message).not.toContain('Invalid input');
    const client = app.trpc(await admin());
    await expect(
      client.adminUpdateDefinition.mutate({
        kind: 'event_type',
        key,
        expectedVersion: 1,
        definition: partial as any,
      }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/^definition\.(title|maxValue)/) });
    expect(await storedVersions(key)).toBe(1);
  });
});
