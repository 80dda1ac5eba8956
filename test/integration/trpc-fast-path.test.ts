import { describe, expect, it } from 'vitest';

import { type ApiResponse, useTestApp } from '../helpers/test-app.js';

/**
 * /trpc answers single JSON mutations on a fast path (src/http/trpc-fast.ts)
 * and everything else through tRPC's adapter. A batch of one always goes
 * through the adapter, so each case sends the same call both ways and expects
 * the same status, headers and message.
 */

const { app, database } = useTestApp();

interface Call {
  token?: string | null;
  /** The request body as sent on the fast path; undefined sends none. */
  raw?: string;
  contentType?: string;
}

async function both(procedure: string, call: Call) {
  const send = (path: string, rawBody: string | undefined) =>
    app.request('POST', path, {
      token: call.token,
      rawBody,
      contentType: call.contentType ?? 'application/json',
    });
  // The adapter first: a no-op write after it leaves the same state behind.
  const adapter = await send(
    `/trpc/${procedure}?batch=1`,
    call.raw === undefined
      ? undefined
      : `{"0":${call.raw}`.concat(call.raw.endsWith('}') ? '}' : ''),
  );
  const fast = await send(`/trpc/${procedure}`, call.raw);
  return { fast, adapter, adapterMessage: (adapter.body as unknown[] | undefined)?.[0] };
}

function sameHeaders(fast: ApiResponse, adapter: ApiResponse): void {
  for (const name of ['content-type', 'www-authenticate', 'retry-after', 'vary']) {
    expect(fast.headers.get(name), name).toBe(adapter.headers.get(name));
  }
}

describe('/trpc fast path — same answers as the adapter', () => {
  it('a successful mutation', async () => {
    const token = await app.token();
    const { fast, adapter, adapterMessage } = await both('updateUser', {
      token,
      raw: JSON.stringify({ name: 'Same Both Ways' }),
    });
    expect(adapter.status).toBe(200);
    expect(fast.status).toBe(200);
    expect(fast.body).toEqual(adapterMessage);
    expect(fast.body.result.data.data.name).toBe('Same Both Ways');
    sameHeaders(fast, adapter);
  });

  it('a validation error (unknown key) and an empty body', async () => {
    const token = await app.token();
    for (const raw of [JSON.stringify({ favouriteTeam: 'Arsenal' }), undefined]) {
      const { fast, adapter, adapterMessage } = await both('updateUser', { token, raw });
      expect(fast.status).toBe(400);
      expect(fast.status).toBe(adapter.status);
      expect(fast.body).toEqual(adapterMessage);
      expect(fast.body.error.data.errorCode).toBe('VALIDATION_FAILED');
      sameHeaders(fast, adapter);
    }
  });

  it('a missing and a forged token', async () => {
    const token = await app.token();
    const [header, payload] = token.split('.');
    for (const bad of [null, `${header}.${payload}.${'A'.repeat(86)}`]) {
      const { fast, adapter, adapterMessage } = await both('onboardProfile', {
        token: bad,
        raw: '{}',
      });
      expect(fast.status).toBe(401);
      expect(fast.status).toBe(adapter.status);
      expect(fast.body).toEqual(adapterMessage);
      expect(fast.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
      sameHeaders(fast, adapter);
    }
  });

  it('a handle another user holds', async () => {
    const handle = `fast_${Date.now().toString(36)}`;
    const holder = await app.token();
    expect((await app.trpc(holder).updateUser.mutate({ handle })).data.handle).toBe(handle);
    const { fast, adapter, adapterMessage } = await both('updateUser', {
      token: await app.token(),
      raw: JSON.stringify({ handle }),
    });
    expect(fast.status).toBe(409);
    expect(fast.status).toBe(adapter.status);
    expect(fast.body).toEqual(adapterMessage);
  });

  it('malformed JSON', async () => {
    const token = await app.token();
    const fast = await app.request('POST', '/trpc/updateUser', { token, rawBody: '{"name":' });
    const adapter = await app.request('POST', '/trpc/updateUser?batch=1', {
      token,
      rawBody: '{"0":{"name":}',
    });
    expect(fast.status).toBe(adapter.status);
    expect(fast.body.error.code).toBe(adapter.body[0].error.code);
    expect(fast.body.error.data.errorCode).toBe(adapter.body[0].error.data.errorCode);
  });

  it('leaves an unknown procedure to the adapter', async () => {
    const token = await app.token();
    const unknown = await app.request('POST', '/trpc/noSuchProcedure', { token, rawBody: '{}' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.data.code).toBe('NOT_FOUND');
  });
});
