import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * The audit log is append-only in the database (db/migrations/…_admin.ts): a
 * trigger refuses every UPDATE and DELETE but one, a fan row's `target_key`
 * rewritten to the tombstone's id when the fan deletes their account
 * (docs/ACCOUNT.md).
 */
const { app } = useTestApp();

/** An audit row about a fan (an adjustment), and one about a definition. */
async function auditRows() {
  const admin = await app.serviceToken('ops-console', 'admin');
  const subject = uniqueSubject('fan');
  const token = await app.token(subject);
  const onboarding = await app.request('POST', '/api/user/profile', { token, body: {} });
  expect(onboarding.status, onboarding.text).toBe(201);
  const userId = onboarding.body.data.user.id as string;
  const adjusted = await app.request('POST', `/api/admin/fans/${userId}/adjustments`, {
    token: admin,
    body: { id: `${subject}-adj`, points: 5, reason: 'goodwill' },
  });
  expect(adjusted.status, adjusted.text).toBe(200);
  const key = `audit_${process.pid}_${Date.now().toString(36)}`;
  const created = await app.request('POST', '/api/admin/definitions', {
    token: admin,
    body: { definition: { kind: 'event_type', key, title: 'Audited', points: 1, maxValue: 1 } },
  });
  expect(created.status, created.text).toBe(201);
  const rowAbout = async (kind: string, targetKey: string) => {
    const { rows } = await sql<{ id: string }>`
      SELECT id::text AS id FROM admin_audit
      WHERE target_kind = ${kind} AND target_key = ${targetKey}`.execute(app.db);
    expect(rows).toHaveLength(1);
    return rows[0]!.id;
  };
  const fanRow = await rowAbout('fan', userId);
  const definitionRow = await rowAbout('definition', `event_type/${key}`);
  return { subject, userId, fanRow, definitionRow };
}

async function rowOf(id: string) {
  const { rows } = await sql<
    Record<string, unknown>
  >`SELECT * FROM admin_audit WHERE id = ${id}::bigint`.execute(app.db);
  return rows[0];
}

describe('admin_audit is append-only', () => {
  it.each([
    ['after', sql`after = '{"reason":"rewritten"}'::jsonb`],
    ['before', sql`before = NULL`],
    ['actor', sql`actor = 'someone-else'`],
    ['action', sql`action = 'fan.unban'`],
    ['at', sql`at = now() - interval '1 year'`],
    ['target_kind', sql`target_kind = 'definition'`],
  ])(
    'refuses an UPDATE of %s, also of a fan row, and the row stays as written',
    async (_c, set) => {
      const { fanRow, definitionRow } = await auditRows();
      for (const id of [fanRow, definitionRow]) {
        const before = await rowOf(id);
        await expect(
          sql`UPDATE admin_audit SET ${set} WHERE id = ${id}::bigint`.execute(app.db),
        ).rejects.toThrow(/append-only/);
        expect(await rowOf(id)).toEqual(before);
      }
    },
  );

  it('refuses a DELETE', async () => {
    const { fanRow } = await auditRows();
    await expect(
      sql`DELETE FROM admin_audit WHERE id = ${fanRow}::bigint`.execute(app.db),
    ).rejects.toThrow(/append-only/);
    expect(await rowOf(fanRow)).toBeDefined();
  });

  it('allows the one update it is for: a fan row’s target_key, and no other row’s', async () => {
    const { fanRow, definitionRow } = await auditRows();
    const tombstone = '00000000-0000-4000-8000-000000000042';
    const before = await rowOf(fanRow);
    await sql`UPDATE admin_audit SET target_key = ${tombstone} WHERE id = ${fanRow}::bigint`.execute(
      app.db,
    );
    expect(await rowOf(fanRow)).toEqual({ ...before, targetKey: tombstone });
    // Not together with anything else.
    await expect(
      sql`UPDATE admin_audit SET target_key = 'x', actor = 'y' WHERE id = ${fanRow}::bigint`.execute(
        app.db,
      ),
    ).rejects.toThrow(/append-only/);
    // A definition's row names no fan: its key never changes.
    await expect(
      sql`UPDATE admin_audit SET target_key = 'quest/other' WHERE id = ${definitionRow}::bigint`.execute(
        app.db,
      ),
    ).rejects.toThrow(/append-only/);
  });

  it('lets an account deletion rewrite the fan’s rows to the tombstone', async () => {
    const { subject, userId, fanRow } = await auditRows();
    const before = await rowOf(fanRow);
    const token = await app.token(subject);
    expect((await app.request('DELETE', '/api/user', { token })).status).toBe(200);
    const after = (await rowOf(fanRow)) as any;
    expect(after.targetKey).not.toBe(userId);
    expect({ ...after, targetKey: (before as any).targetKey }).toEqual(before);
  });
});
