import { describe, expect, it } from 'vitest';
import { FACES, reader } from '../../helpers/reads.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Hostile token subjects over real HTTP on both faces: a signed `sub` that is too long, holds
 * control characters or is not valid Unicode is a 401, and `x\\uFFFD` is its own account.
 */

const { app } = useTestApp();

describe.each(FACES)('hostile token subjects over %s', (face) => {
  it.each([
    ['NUL', 'a\u0000b', /control characters/],
    [
      '2.7 KB of text',
      Array.from({ length: 900 }, (_, i) =>
        String.fromCharCode(0x4e00 + ((i * 7919) % 20000)),
      ).join(''),
      /longer than 255/,
    ],
    ['256 characters', 'x'.repeat(256), /longer than 255/],
    ['a lone high surrogate', 'x\uD800', /not valid Unicode/],
    ['a lone low surrogate', 'x\uDFFF', /not valid Unicode/],
  ])('a signed token whose sub is %s is a 401, not a 500', async (_, subject, message) => {
    const token = await app.issuer.sign(subject);
    const result = await reader(app, face)('me', token);
    expect(result).toMatchObject({ ok: false, status: 401, code: 'UNAUTHENTICATED' });
    if (!result.ok) expect(result.message).toMatch(message);
  });

  it('x\\uFFFD is its own account, and no lone surrogate can reach it', async () => {
    const subject = `${uniqueSubject('fffd')}\uFFFD`;
    const me = await reader(app, face)('me', await app.issuer.sign(subject));
    expect(me.ok).toBe(true);
    const users = await app.db
      .selectFrom('users')
      .select('subject')
      .where('subject', '=', subject)
      .execute();
    expect(users).toEqual([{ subject }]);
    const lone = await reader(app, face)(
      'me',
      await app.issuer.sign(subject.replace('\uFFFD', '\uD800')),
    );
    expect(lone).toMatchObject({ ok: false, status: 401 });
  });
});
