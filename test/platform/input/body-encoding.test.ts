import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FACES } from '../../helpers/reads.js';
import { useTestApp } from '../../helpers/test-app.js';
import { errorCodeOf, isErrorLine, raw, rawWrite } from '../../helpers/raw-http.js';

/**
 * One media-type rule and one Content-Encoding rule for both faces, over real HTTP: only
 * `application/json` (optionally `charset=utf-8`), identity/gzip/deflate/br, a body that cannot be
 * decoded a 400 with no error log, an inflating bomb a 413, the same without a token.
 */

const { app } = useTestApp();

describe.each(FACES)('media types over %s', (face) => {
  it.each([
    'application/jsonx',
    'application/json-patch+json',
    'application/json, text/plain',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/json; version=2',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
  ])('refuses Content-Type %s with a 415', async (contentType) => {
    const response = await rawWrite(app, face, await app.token(), '{"name":"x"}', {
      'content-type': contentType,
    });
    expect(response.status).toBe(415);
    expect(errorCodeOf(face, response)).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it.each([
    'application/json',
    'Application/JSON; charset=UTF-8',
    'application/json;charset="utf-8"',
  ])('accepts %s', async (contentType) => {
    const response = await rawWrite(app, face, await app.token(), '{"name":"Media"}', {
      'content-type': contentType,
    });
    expect(response.status).toBe(200);
  });
});

describe.each(FACES)('Content-Encoding over %s', (face) => {
  const json = { 'content-type': 'application/json' };
  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('accepts a %s body', async (encoding, compress) => {
    const token = await app.token();
    const response = await rawWrite(app, face, token, compress('{"name":"Squeezed"}'), {
      ...json,
      'content-encoding': encoding,
    });
    expect(response.status).toBe(200);
    const me = await app.request('GET', '/api/user', { token });
    expect(me.body.data.name).toBe('Squeezed');
  });

  it.each(['gzip', 'deflate', 'br'])(
    'answers a body that is not valid %s with a 400, and logs no error',
    async (encoding) => {
      const errorsBefore = app.logs.filter(isErrorLine).length;
      const response = await rawWrite(app, face, await app.token(), '{}', {
        ...json,
        'content-encoding': encoding,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toEqual({
        code: 'VALIDATION_FAILED',
        message: 'The request body could not be decoded: it does not match its Content-Encoding',
      });
      expect(app.logs.filter(isErrorLine)).toHaveLength(errorsBefore);
    },
  );

  it.each(['zstd', 'compress', 'x-gzip', 'gzip, br', 'identity;q=1'])(
    'refuses Content-Encoding %s with a 415',
    async (encoding) => {
      const response = await rawWrite(app, face, await app.token(), '{}', {
        ...json,
        'content-encoding': encoding,
      });
      expect(response.status).toBe(415);
      expect(response.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    },
  );

  it('refuses a body that inflates past 16 KiB with a 413', async () => {
    const bomb = gzipSync(`{"name":"${'a'.repeat(1_000_000)}"}`);
    expect(bomb.length).toBeLessThan(16 * 1024);
    const response = await rawWrite(app, face, await app.token(), bomb, {
      ...json,
      'content-encoding': 'gzip',
    });
    expect(response.status).toBe(413);
  });

  it('answers without a token the same way (no 500 on any path)', async () => {
    for (const path of ['/api/user', '/api/nothing-here', '/trpc/updateUser']) {
      const response = await raw(app.url, path, {
        method: path.startsWith('/trpc') ? 'POST' : 'PATCH',
        headers: { ...json, 'content-encoding': 'gzip' },
        body: '{}',
      });
      expect(response.status, path).toBe(400);
    }
  });
});
