import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/app-error.js';
import { ERROR_TABLE } from '../../src/error-mapping.js';
import { PROFILE_FIELDS } from '../../db/profile-fields.js';
import { MAX_TRPC_BATCH } from '../../src/http/trpc-batch.js';
import { consistencyProblems } from '../helpers/consistency.js';

import { uniqueSubject, useTestApp } from '../helpers/test-app.js';

/**
 * Property-based fuzzing of both write endpoints over real HTTP. Every body is
 * raw JSON text (so keys like `__proto__`, duplicate keys, huge number
 * literals and lone-surrogate escapes reach the server exactly as written).
 *
 * FUZZ_RUNS (default 300) sets the number of requests, FUZZ_SEED replays a
 * run; the seed is printed whenever the property fails.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : Date.now() ^ (Math.random() * 2 ** 31);

const OPERATIONS = [
  { method: 'PATCH', path: '/api/user', openapiMethod: 'patch' },
  { method: 'POST', path: '/api/user/profile', openapiMethod: 'post' },
] as const;

const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'valueOf',
  'toString',
  'hasOwnProperty',
  'prototype',
  'favouriteTeam',
  '',
];

// --- strings from every plane, control characters, lone surrogates --------

const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)); // 0xD800-0xDFFF: lone surrogates
const control = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((c) => String.fromCharCode(c));
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: anyCodePoint, maxLength: 20 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), control, fc.string({ maxLength: 10 }))
    .map((p) => p.join('')),
  fc
    .tuple(fc.string({ maxLength: 10 }), loneSurrogate, fc.string({ maxLength: 10 }))
    .map((p) => p.join('')),
  fc.stringMatching(/^@?[A-Za-z0-9_]{1,32}$/), // handle-like, some valid, some colliding
  fc.constantFrom('admin', 'Support', '@root', 'ann', 'Ann', 'fuzz_handle', 'FUZZ_HANDLE'),
  fc.webUrl().map((url) => url.replace(/^http:/, 'https:')),
  fc.constantFrom('javascript:alert(1)', 'https://user:pw@x.example', 'data:text/html,x'),
  fc.integer({ min: 0, max: 3000 }).map((n) => 'x'.repeat(n)), // around the field limits
);

// --- values as raw JSON text ----------------------------------------------

const hugeNumber = fc.constantFrom(
  '1e400',
  '-1e400',
  '123456789012345678901234567890',
  '-0',
  '0.0000000000000000000000001',
  '9007199254740993',
  '1E+308',
);
const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const rawValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: text.map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: fc.constant('null') },
  { weight: 1, arbitrary: hugeNumber },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 60 }).map(deep) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{}}}'),
  },
);
const rawKey = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...PROFILE_FIELDS) },
  { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_KEYS) },
  { weight: 1, arbitrary: text },
);
const objectBody = fc
  .array(fc.tuple(rawKey, rawValue), { maxLength: 6 })
  .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);

const rawBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: objectBody },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) }, // not JSON at all
  { weight: 1, arbitrary: fc.integer({ min: 20, max: 5000 }).map((d) => `{"name":${deep(d)}}`) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 15 * 1024, max: 20 * 1024 })
      .map((n) => JSON.stringify({ name: 'é'.repeat(n / 2) })), // around 16 KiB
  },
);

// --- the checks -------------------------------------------------------------

type Documented = Record<string, Record<string, { responses: Record<string, unknown> }>>;

let documented: Documented;
const tokens: string[] = [];

const { app, database } = useTestApp();

beforeAll(async () => {
  documented = (await app.request('GET', '/openapi.json')).body.paths as Documented;
  for (let i = 0; i < 4; i += 1) tokens.push(await app.token(uniqueSubject('fuzz')));
});

function checkEnvelope(status: number, body: any): void {
  expect(typeof body).toBe('object');
  if (status < 300) {
    expect(body.success).toBe(true);
    expect(typeof body.data).toBe('object');
    return;
  }
  expect(body.success).toBe(false);
  expect(Object.keys(body).sort()).toEqual(['error', 'success']);
  expect(ERROR_CODES).toContain(body.error.code);
  expect(ERROR_TABLE[body.error.code as keyof typeof ERROR_TABLE].status).toBe(status);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  if (body.error.issues !== undefined) {
    expect(Array.isArray(body.error.issues)).toBe(true);
    for (const issue of body.error.issues) {
      expect(Object.keys(issue).sort()).toEqual(['message', 'path']);
      expect(typeof issue.path).toBe('string');
      expect(typeof issue.message).toBe('string');
    }
  }
}

describe('fuzzing PATCH /api/user and POST /api/user/profile', () => {
  it(
    `answers every hostile body with a documented status and the envelope, never 500 (${RUNS} runs)`,
    { timeout: 30_000 + RUNS * 400 },
    async () => {
      const seen = new Map<number, number>();
      const property = fc.asyncProperty(
        fc.constantFrom(...OPERATIONS),
        fc.integer({ min: 0, max: tokens.length - 1 }),
        rawBody,
        async (operation, user, body) => {
          const response = await app.request(operation.method, operation.path, {
            token: tokens[user],
            rawBody: body,
          });
          seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
          expect(response.status).not.toBe(500);
          const statuses = Object.keys(
            documented[operation.path]?.[operation.openapiMethod]?.responses ?? {},
          );
          expect(statuses).toContain(String(response.status));
          expect(response.body, response.text).toBeDefined();
          checkEnvelope(response.status, response.body);
        },
      );
      try {
        await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
      } catch (error) {
        process.stderr.write(`fuzz failed: replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n`);
        throw error;
      }
      if (process.env.FUZZ_VERBOSE)
        process.stderr.write(`fuzz statuses: ${JSON.stringify([...seen])}\n`);
      // The run exercised both outcomes, not only refusals.
      expect([...seen.keys()].some((status) => status < 300)).toBe(true);
      expect([...seen.keys()].some((status) => status >= 400)).toBe(true);
      expect(await consistencyProblems(app.db)).toEqual([]);
    },
  );
});

// --- tRPC batches and content encodings ----------------------------------------

const PROCEDURES = [
  'me',
  'quests',
  'pointsHistory',
  'leaderboard',
  'updateUser',
  'onboardProfile',
  'noSuchProcedure',
  '',
  '__proto__',
  'constructor',
];
const ERROR_STATUSES = new Set(Object.values(ERROR_TABLE).map((entry) => entry.status));

/** A log line at error level or worse (the logger writes level labels). */
const isErrorLine = (line: string) => ['error', 'fatal'].includes(JSON.parse(line).level);

/** One tRPC answer item: a result, or the tRPC error shape with a contract code. */
function checkTrpcItem(item: any): void {
  expect(typeof item).toBe('object');
  if ('result' in item) return;
  expect(ERROR_CODES).toContain(item.error.data.errorCode);
  expect(item.error.data.httpStatus).not.toBe(500);
}

const encodings = fc.constantFrom(
  undefined,
  'identity',
  'gzip',
  'deflate',
  'br',
  'GZIP',
  'zstd',
  'x-gzip',
  'compress',
  'gzip, br',
  '',
);
const compressors: Record<string, (input: Buffer) => Buffer> = {
  gzip: gzipSync,
  deflate: deflateSync,
  br: brotliCompressSync,
};

describe('fuzzing tRPC batches and content encodings', () => {
  it(
    `answers every batch and every encoding with a documented status, never 500 (${RUNS} runs)`,
    { timeout: 30_000 + RUNS * 400 },
    async () => {
      const errorLinesBefore = app.logs.filter(isErrorLine).length;
      const property = fc.asyncProperty(
        fc.array(fc.constantFrom(...PROCEDURES), { minLength: 1, maxLength: 14 }),
        fc.boolean(), // batch=1 or not
        fc.constantFrom('GET', 'POST'),
        fc.integer({ min: 0, max: tokens.length - 1 }),
        rawBody,
        encodings,
        fc.constantFrom('encoded', 'raw', 'truncated'),
        async (paths, batch, method, user, body, encoding, how) => {
          const input = Buffer.from(body);
          const compress = compressors[encoding?.toLowerCase() ?? ''];
          let sent: Buffer = input;
          if (compress && how !== 'raw') sent = compress(input);
          if (compress && how === 'truncated') sent = sent.subarray(0, Math.floor(sent.length / 2));
          const headers: Record<string, string> = { authorization: `Bearer ${tokens[user]}` };
          if (encoding !== undefined) headers['content-encoding'] = encoding;
          let url = `${app.url}/trpc/${paths.join(',')}${batch ? '?batch=1' : ''}`;
          const init: RequestInit = { method, headers };
          if (method === 'POST') {
            headers['content-type'] = 'application/json';
            init.body = sent;
          } else if (body.length <= 2000) {
            // Longer inputs would make the request line itself too large (a 413 before routing).
            url += `${batch ? '&' : '?'}input=${encodeURIComponent(body)}`;
          }
          const response = await fetch(url, init);
          const text = await response.text();
          expect(response.status, text).not.toBe(500);
          expect([200, 207, ...ERROR_STATUSES]).toContain(response.status);
          if (batch && paths.length > MAX_TRPC_BATCH) expect(response.status).toBe(400);
          const parsed: any = JSON.parse(text);
          if (parsed.success === false) {
            // Refused before tRPC (batch size, media type, encoding, body limits): the envelope.
            checkEnvelope(response.status, parsed);
          } else if (Array.isArray(parsed)) {
            expect(batch).toBe(true);
            expect(parsed).toHaveLength(paths.length);
            for (const item of parsed) checkTrpcItem(item);
          } else {
            checkTrpcItem(parsed);
          }
        },
      );
      try {
        await fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });
      } catch (error) {
        process.stderr.write(`fuzz failed: replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n`);
        throw error;
      }
      expect(app.logs.filter(isErrorLine)).toHaveLength(errorLinesBefore);
      expect(await consistencyProblems(app.db)).toEqual([]);
    },
  );
});
