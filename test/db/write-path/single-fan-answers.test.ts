import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../helpers/test-app.js';

/**
 * The n = 1 case of every write, byte for byte: one fan's PATCH, onboarding,
 * event, reversal, adjustment, ban and deletion, their repeats and their
 * refusals, in a fixed order on a database of the file's own, answer
 * exactly the text in __snapshots__/single-fan-answers.txt, and leave
 * exactly its outbox rows (type and payload, in order). Only what differs
 * from run to run is normalised: ids (numbered by first appearance),
 * instants, and the day, week and month they fall in. A change to how
 * writes are made (issue 37: one engine for sets of fans) must not change a
 * byte of it; a deliberate change of an answer updates the file
 * (`npx vitest run -u` on this file) and says so.
 */
const { app, database } = useTestApp();

function normaliser() {
  const ids = new Map<string, string>();
  return (text: string) =>
    text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
        if (!ids.has(id)) ids.set(id, `<id ${ids.size + 1}>`);
        return ids.get(id)!;
      })
      // Ledger entries' ids (a sequence's values): which entries are the same, not which number.
      .replace(/"id":"(\d+)"/g, (_, n: string) => {
        if (!ids.has(n)) ids.set(n, `<entry ${ids.size + 1}>`);
        return `"id":"${ids.get(n)!}"`;
      })
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, '<instant>')
      .replace(/\b\d{4}-\d{2}-\d{2}\b/g, '<day>')
      .replace(/\b\d{4}-W\d{2}\b/g, '<week>')
      .replace(/\b\d{4}-(0[1-9]|1[0-2])\b/g, '<month>');
}

describe('the n = 1 case of every write, byte for byte', () => {
  it('answers and outbox rows equal the recorded transcript', async () => {
    const normalise = normaliser();
    const lines: string[] = [];
    const fan = { ann: await app.token('golden-ann'), bob: await app.token('golden-bob') };
    const sender = await app.serviceToken('golden-sender');
    const admin = await app.serviceToken('golden-ops', 'admin');
    const at = new Date(Date.now() - 60_000).toISOString();
    async function call(what: string, method: string, path: string, token: string, body?: unknown) {
      const response = await app.request(method, path, { token, body });
      lines.push(`### ${what}: ${method} ${normalise(path)} → ${response.status}`);
      lines.push(normalise(response.text));
      return response.body;
    }
    const event = (id: string, subject: string, type: string, more: object = {}) => ({
      id,
      subject,
      type,
      occurredAt: at,
      ...more,
    });
    async function outbox(what: string) {
      const { rows } = await sql<{ userId: string | null; type: string; payload: unknown }>`
        SELECT user_id, type, payload FROM live_events ORDER BY id`.execute(database.db);
      lines.push(`### ${what}`);
      for (const row of rows) {
        lines.push(normalise(`${row.userId} ${row.type} ${JSON.stringify(row.payload)}`));
      }
    }
    const events = (what: string, list: unknown[]) =>
      call(what, 'POST', '/api/events', sender, { events: list });

    await call('PATCH before onboarding', 'PATCH', '/api/user', fan.ann, { name: 'Ann' });
    const onboarded = await call('onboarding', 'POST', '/api/user/profile', fan.ann, {
      handle: 'ann_golden',
      favoriteTeam: 'Red Lions',
    });
    const ann = onboarded.data.user.id as string;
    await call('onboarding again', 'POST', '/api/user/profile', fan.ann, {});
    const bobOnboarded = await call(
      'onboarding, no fields',
      'POST',
      '/api/user/profile',
      fan.bob,
      {},
    );
    const bob = bobOnboarded.data.user.id as string;
    await call('PATCH a taken handle', 'PATCH', '/api/user', fan.bob, { handle: 'ANN_golden' });
    await call('PATCH completing quests', 'PATCH', '/api/user', fan.bob, {
      handle: 'bob_golden',
      favoriteTeam: 'Blue Sharks',
      rivalTeam: 'Red Lions',
    });
    await call('PATCH rival = favorite', 'PATCH', '/api/user', fan.bob, {
      rivalTeam: 'blue sharks',
    });
    await call('PATCH the same value', 'PATCH', '/api/user', fan.bob, {
      favoriteTeam: 'Blue Sharks',
    });
    lines.push('### PATCH by tRPC');
    const trpc = await app.trpc(fan.ann).updateUser.mutate({ location: 'Lisbon' });
    lines.push(normalise(JSON.stringify(trpc)));

    await events('one event', [event('e1', 'golden-ann', 'prediction_correct')]);
    await events('the same event again', [event('e1', 'golden-ann', 'prediction_correct')]);
    await events('the id with another body', [event('e1', 'golden-bob', 'prediction_correct')]);
    await events('a fan not seen before', [
      event('e2', 'golden-cid', 'article_read', { value: 3 }),
    ]);
    for (let n = 1; n <= 6; n += 1) {
      await events(`check-in ${n} of a cap of 5`, [event(`c${n}`, 'golden-bob', 'match_checkin')]);
    }
    await events('unknown type and bad value', [
      event('e3', 'golden-bob', 'no_such_type'),
      event('e4', 'golden-bob', 'article_read', { value: 999 }),
    ]);
    await call('reversal', 'POST', '/api/events/reversals', sender, { id: 'e1' });
    await call('reversal again', 'POST', '/api/events/reversals', sender, { id: 'e1' });
    await call('reversal of no event', 'POST', '/api/events/reversals', sender, { id: 'nope' });

    const adjust = `/api/admin/fans/${bob}/adjustments`;
    await call('adjustment', 'POST', adjust, admin, { id: 'adj1', points: 40, reason: 'Gate 4' });
    await call('adjustment again', 'POST', adjust, admin, {
      id: 'adj1',
      points: 40,
      reason: 'Gate 4',
    });
    await call('adjustment below 0', 'POST', adjust, admin, {
      id: 'adj2',
      points: -100000,
      reason: 'Too much',
    });
    await call('ban', 'PUT', `/api/admin/fans/${ann}/ban`, admin, { banned: true, reason: 'Spam' });
    await events('an event of a banned fan', [event('e5', 'golden-ann', 'match_checkin')]);
    await call('unban', 'PUT', `/api/admin/fans/${ann}/ban`, admin, {
      banned: false,
      reason: 'Appeal',
    });
    await call('admin reversal', 'POST', '/api/admin/reversals', admin, {
      clientId: 'golden-sender',
      id: 'c2',
      reason: 'Duplicate scan',
    });
    for (const [name, token] of Object.entries(fan)) {
      await call(`${name} reads`, 'GET', '/api/user', token);
      await call(`${name}'s points`, 'GET', '/api/user/points', token);
      await call(`${name} around`, 'GET', '/api/leaderboard/me?radius=2', token);
    }
    await call('the board', 'GET', '/api/leaderboard', fan.ann);
    await outbox('the outbox');
    await call('deletion', 'DELETE', '/api/user', fan.ann);
    await call('the board after', 'GET', '/api/leaderboard', fan.bob);
    await outbox('the outbox after the deletion');
    await expect(`${lines.join('\n')}\n`).toMatchFileSnapshot(
      '__snapshots__/single-fan-answers.txt',
    );
  }, 120_000);
});
