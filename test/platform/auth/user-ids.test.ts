import { randomUUID } from 'node:crypto';
import { InsertQueryNode, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByIdentity } from '../../../db/queries/users.js';
import type { Database } from '../../../db/schema.js';
import { createUserIdResolver } from '../../../src/auth/user-ids.js';
import type { FanPrincipal } from '../../../src/auth/principal.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-db.js';

let database: TestDatabase;
let db: Kysely<Database>;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.db;
});
afterAll(async () => {
  await database?.destroy();
});

const principal = (subject: string = randomUUID()): FanPrincipal => ({
  kind: 'fan',
  issuer: 'https://issuer.test',
  subject,
  expiresAt: Math.floor(Date.now() / 1000) + 300,
});

describe('user id resolver', () => {
  it('creates the user on first sight and returns the same id after', async () => {
    const resolver = createUserIdResolver();
    const who = principal();
    const id = await resolver.resolve(db, who);
    expect(await resolver.resolve(db, who)).toBe(id);
    expect((await findUserByIdentity(db, who.issuer, who.subject))?.id).toBe(id);
  });

  it('gives new users time-ordered ids (UUIDv7), so they sort in the order they were created', async () => {
    const resolver = createUserIdResolver();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(await resolver.resolve(db, principal()));
      // UUIDv7 orders by millisecond; within one, by its random bits.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    const stored = await db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    expect(stored.map((row) => row.id)).toEqual(ids);
  });

  it('answers a known identity from memory, without reading users', async () => {
    const resolver = createUserIdResolver();
    const who = principal();
    const id = await resolver.resolve(db, who);
    // Gone from the database, still known here: the lookup was not repeated.
    await db.deleteFrom('users').where('id', '=', id).execute();
    expect(await resolver.resolve(db, who)).toBe(id);
    // A resolver without that memory creates the user again, with a new id.
    const fresh = await createUserIdResolver().resolve(db, who);
    expect(fresh).not.toBe(id);
  });

  it('gives a new user to an identity whose user is deleted between the insert and the lookup', async () => {
    const who = principal();
    const oldId = await createUserIdResolver().resolve(db, who);
    // The insert meets the existing row; before the lookup runs, the account
    // is deleted (as DELETE /api/user racing the identity's other requests).
    const inserts = new Set<unknown>();
    let deletion: Promise<unknown> | undefined;
    const deleteInBetween: KyselyPlugin = {
      transformQuery({ node, queryId }) {
        if (InsertQueryNode.is(node)) inserts.add(queryId);
        return node;
      },
      async transformResult({ result, queryId }) {
        if (inserts.has(queryId) && result.rows.length === 0 && !deletion) {
          deletion = db.deleteFrom('users').where('id', '=', oldId).execute();
          // PostgreSQL: committed on another pooled connection before the lookup
          // is sent. PGlite (one session, taken in turn): queued now, so it runs
          // as soon as the insert lets go of the session, before the lookup.
          if (database.kind === 'postgres') await deletion;
        }
        return result;
      },
    };
    const id = await createUserIdResolver().resolve(db.withPlugin(deleteInBetween), who);
    await deletion;
    expect(deletion).toBeDefined();
    expect(id).not.toBe(oldId);
    expect((await findUserByIdentity(db, who.issuer, who.subject))?.id).toBe(id);
  });

  it('keeps issuer and subject apart and stays within maxEntries', async () => {
    let now = Date.now();
    const resolver = createUserIdResolver({ maxEntries: 1, now: () => now });
    const a = principal('x"y');
    const b: FanPrincipal = { ...principal('y'), issuer: 'https://issuer.test/x"' };
    const idA = await resolver.resolve(db, a);
    const idB = await resolver.resolve(db, b);
    expect(idA).not.toBe(idB);
    // With one entry, a was evicted by b: it is looked up again (same row).
    await db.deleteFrom('users').where('id', '=', idA).execute();
    expect(await resolver.resolve(db, a)).not.toBe(idA);
    // After the TTL, b is looked up again too.
    await db.deleteFrom('users').where('id', '=', idB).execute();
    now += 11 * 60_000;
    expect(await resolver.resolve(db, b)).not.toBe(idB);
  });
});
