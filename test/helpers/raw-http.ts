import type { AuthVerifier } from '../../src/auth/verifier.js';
import { afterAll } from 'vitest';
import type { Face } from './reads.js';
import { route } from './routes.js';
import { startTestApp, type TestApp } from './test-app.js';
import type { TestDatabase } from './test-db.js';

/**
 * Raw HTTP for the tests of the HTTP layer (batches, media types, encodings, HEAD, a failing
 * identity provider): bytes and headers no client library would send.
 */

/**
 * Apps with their own settings on `database` (the file's shared one), closed after the file's
 * tests: call at the top level of a test file.
 */
export function useExtraApps(database: () => TestDatabase) {
  const extraApps: TestApp[] = [];
  afterAll(async () => {
    for (const other of extraApps) await other.close();
  });
  return async function appWith(
    options: Parameters<typeof startTestApp>[0] extends infer O ? Omit<O, 'database'> : never,
  ): Promise<TestApp> {
    const other = await startTestApp({ database: database(), ...options });
    extraApps.push(other);
    return other;
  };
}

/** Verifications that reached the real verifier (the token cache sits in front of it). */
export function counting(verifier: AuthVerifier): AuthVerifier & { count: number } {
  const counted = {
    count: 0,
    verify(token: string) {
      counted.count += 1;
      return verifier.verify(token);
    },
  };
  return counted;
}

/** A log line at error level or worse (the logger writes level labels). */
export const isErrorLine = (line: string) => ['error', 'fatal'].includes(JSON.parse(line).level);

export const batchPath = (procedure: string, n: number, input?: unknown) =>
  `/trpc/${Array(n).fill(procedure).join(',')}?batch=1${
    input === undefined ? '' : `&input=${encodeURIComponent(JSON.stringify(input))}`
  }`;

export async function raw(base: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** A write on either face with a raw body and headers. */
export function rawWrite(
  app: TestApp,
  face: Face,
  token: string,
  body: string | Buffer,
  headers: Record<string, string>,
) {
  const { method, path } =
    face === 'rest' ? route('updateUser') : { method: 'POST', path: '/trpc/updateUser' };
  return raw(app.url, path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...headers },
    body,
  });
}

export const errorCodeOf = (face: Face, response: { body: any }) =>
  face === 'rest' || response.body?.success === false
    ? response.body?.error?.code
    : response.body?.error?.data?.errorCode;
