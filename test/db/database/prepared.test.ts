import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fill, Slot } from '../../../db/statements.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.destroy();
});

describe('compiled statements (db/statements.ts)', () => {
  it('compile once and bind each call’s own values, nulls included, with camelCased rows', async () => {
    const { db, statements } = database;
    let builds = 0;
    const insert = (on: typeof db, subject: string, onboardedAt: Date | null) => {
      type Args = { subject: string; onboardedAt: Date | null };
      const template = statements.template('prepared test insert', (k) => {
        builds += 1;
        return k
          .insertInto('users')
          .values({
            issuer: 'https://prepared.test',
            subject: sql<string>`${new Slot((a: Args) => a.subject)}`,
            onboardedAt: sql<Date | null>`${new Slot((a: Args) => a.onboardedAt)}`,
          })
          .returning(['id', 'subject', 'onboardedAt'])
          .compile();
      });
      return on
        .executeQuery<{ id: string; subject: string; onboardedAt: Date | null }>(
          fill(template, { subject, onboardedAt }),
        )
        .then((result) => result.rows);
    };
    const when = new Date('2026-01-02T03:04:05.678Z');
    const [a] = await insert(db, `a-${randomUUID()}`, when);
    const [b] = await insert(db, `b-${randomUUID()}`, null);
    expect(builds).toBe(1);
    expect(a!.subject).toMatch(/^a-/);
    expect(a!.onboardedAt).toEqual(when);
    expect(b!.subject).toMatch(/^b-/);
    expect(b!.onboardedAt).toBeNull();
    expect(a!.id).not.toBe(b!.id);

    // The same statement inside a transaction runs on the transaction's connection.
    const subject = `t-${randomUUID()}`;
    await db
      .transaction()
      .execute(async (trx) => {
        await insert(trx, subject, null);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const found = await db
      .selectFrom('users')
      .select('id')
      .where('subject', '=', subject)
      .executeTakeFirst();
    expect(found).toBeUndefined();
    expect(builds).toBe(1);
  });
});
