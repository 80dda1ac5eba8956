import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/app-error.js';
import { ERROR_TABLE } from '../../../src/error-mapping.js';
import { PROFILE_FIELDS } from '../../../db/profile-fields.js';
import { MAX_TRPC_BATCH } from '../../../src/http/trpc-batch.js';
import { route } from '../../helpers/routes.js';
import { defaultCatalog } from '../../helpers/catalog.js';
import { consistencyProblems } from '../../helpers/consistency.js';

import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

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

/** Both profile writes, from the router's meta. */
const OPERATIONS = [route('updateUser'), route('onboardProfile')].map(({ method, path }) => ({
  method,
  path,
  openapiMethod: method.toLowerCase(),
}));

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

// --- POST /api/events and POST /api/events/reversals -----------------------------

const catalog = defaultCatalog();
const EVENT_TYPES = [...catalog.eventTypes.keys()];
const REJECTION_CODES = [
  'UNKNOWN_EVENT_TYPE',
  'INVALID_VALUE',
  'OCCURRED_AT_OUT_OF_RANGE',
  'CAP_REACHED',
  'EVENT_ID_REUSED',
];
/** Fans the events name: few, so caps, quests and repeated ids come into play. */
const FANS = Array.from({ length: 5 }, () => uniqueSubject('fuzz-fan'));
/** Event ids from a small pool (repeats within and across batches), and hostile ones. */
const ID_POOL = Array.from({ length: 120 }, (_, i) => `evt-${i}`);

const rawEventId = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...ID_POOL).map((id) => JSON.stringify(id)) },
  {
    weight: 3,
    arbitrary: fc.stringMatching(/^[\x21-\x7E]{1,128}$/).map((id) => JSON.stringify(id)),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', ' ', 'a b', 'x'.repeat(128), 'x'.repeat(129), 'é', 'tab\there')
      .map((id) => JSON.stringify(id)),
  },
  { weight: 1, arbitrary: text.map((id) => JSON.stringify(id)) },
  { weight: 1, arbitrary: fc.constantFrom('1', 'null', 'true', '[]', '{}', '1e400') },
);
const rawSubject = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...FANS).map((s) => JSON.stringify(s)) },
  { weight: 2, arbitrary: text.map((s) => JSON.stringify(s)) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', ' ', 'x\u0000y', 'auth0|42', 's'.repeat(255), 's'.repeat(256), '\ud800')
      .map((s) => JSON.stringify(s)),
  },
  { weight: 1, arbitrary: fc.constantFrom('42', 'null', 'false', '["a"]') },
);
const rawType = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...EVENT_TYPES).map((t) => JSON.stringify(t)) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom('no_such_type', '', 'MATCH_CHECKIN', 'match_checkin ', 't'.repeat(65))
      .map((t) => JSON.stringify(t)),
  },
  { weight: 1, arbitrary: text.map((t) => JSON.stringify(t)) },
  { weight: 1, arbitrary: fc.constantFrom('1', 'null', '{}') },
);
const rawEventValue = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 25 }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: -1000, max: 0 }).map(String) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('1.5', '2.0', '1e0', '1e2', '-0', '0.1') },
  { weight: 1, arbitrary: hugeNumber },
  {
    weight: 1,
    arbitrary: fc.constantFrom('"NaN"', '"Infinity"', '"5"', '"1"', 'null', 'true', '[1]'),
  },
);
const MINUTE = 60_000;
const rawOccurredAt = fc.oneof(
  {
    weight: 4,
    // From 9 days ago (too old) to an hour ahead (too far ahead), as sent.
    arbitrary: fc
      .integer({ min: -9 * 24 * 60, max: 60 })
      .map((minutes) => JSON.stringify(new Date(Date.now() + minutes * MINUTE).toISOString())),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: -24 * 60, max: 0 })
      .map((m) =>
        JSON.stringify(new Date(Date.now() + m * MINUTE).toISOString().replace('Z', '+02:00')),
      ),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        'yesterday',
        '',
        '2026-13-45T00:00:00Z',
        '2026-11-26T10:00:00',
        '2026-11-26',
        '1970-01-01T00:00:00Z',
        '9999-12-31T23:59:59Z',
        '+275760-09-13T00:00:00.000Z',
      )
      .map((s) => JSON.stringify(s)),
  },
  { weight: 1, arbitrary: fc.constantFrom('0', '1732600000000', 'null', '{}') },
);
/**
 * One event as raw JSON, the keys in a fixed order. Well-formed: every field
 * passes the schema (the values still break the catalog's rules: unknown
 * types, floats, negatives, old or future times), so the batch is taken and
 * judged per event. Hostile: any field may be of any shape, missing or
 * joined by an unknown key, which refuses the whole batch (400).
 */
const eventObject = (
  fields: Record<string, string | undefined>,
  unknown?: [string, string] | undefined,
) => {
  const parts = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${JSON.stringify(key)}:${value}`);
  if (unknown) parts.push(`${JSON.stringify(unknown[0])}:${unknown[1]}`);
  return `{${parts.join(',')}}`;
};
const wellFormedEvent = fc
  .record({
    id: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...ID_POOL) },
      { weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7E]{1,128}$/) },
    ),
    subject: fc.constantFrom(...FANS),
    type: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...EVENT_TYPES) },
      { weight: 1, arbitrary: fc.constantFrom('no_such_type', 'MATCH_CHECKIN', 't'.repeat(64)) },
    ),
    value: fc.option(
      fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 1, max: 25 }) },
        { weight: 1, arbitrary: fc.integer({ min: -1000, max: 0 }) },
        {
          weight: 1,
          arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
        },
        { weight: 1, arbitrary: fc.constantFrom(1.5, 2 ** 31, 2 ** 53 + 2, 1e300, -0) },
      ),
      { nil: undefined, freq: 2 },
    ),
    occurredAt: fc.option(
      fc
        .integer({ min: -9 * 24 * 60, max: 60 })
        .map((minutes) => new Date(Date.now() + minutes * MINUTE).toISOString()),
      { nil: undefined, freq: 2 },
    ),
  })
  .map((event) =>
    eventObject(
      Object.fromEntries(
        Object.entries(event).map(([key, value]) => [
          key,
          value === undefined ? undefined : JSON.stringify(value),
        ]),
      ),
    ),
  );
const hostileEvent = fc
  .record({
    id: rawEventId,
    subject: rawSubject,
    type: rawType,
    value: fc.option(rawEventValue, { nil: undefined, freq: 2 }),
    occurredAt: fc.option(rawOccurredAt, { nil: undefined, freq: 2 }),
    unknown: fc.option(fc.tuple(fc.constantFrom('points', '__proto__', 'extra', ''), rawValue), {
      nil: undefined,
      freq: 4,
    }),
    missing: fc.option(fc.constantFrom('id', 'subject', 'type'), { nil: undefined, freq: 4 }),
  })
  .map(({ unknown, missing, ...fields }) =>
    eventObject(
      Object.fromEntries(
        Object.entries(fields).map(([key, value]) => [key, key === missing ? undefined : value]),
      ),
      unknown,
    ),
  );
/** A batch of 0 to over the maximum (100) events, mostly small; sometimes events repeated in it. */
const batchSize = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: 1, max: 6 }) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.integer({ min: 7, max: 100 }) },
  { weight: 1, arbitrary: fc.constantFrom(99, 100, 101, 150) },
);
const rawEventsBody = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .tuple(
        batchSize,
        fc.infiniteStream(wellFormedEvent),
        fc.infiniteStream(hostileEvent),
        // Most batches well-formed throughout; the others with a hostile event here and there.
        fc.constantFrom(0, 0, 0, 0.1, 0.5),
        fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        fc.boolean(),
      )
      .map(([size, clean, hostile, hostileShare, dice, repeat]) => {
        const list = Array.from(
          { length: size },
          () => (dice.next().value < hostileShare ? hostile : clean).next().value as string,
        );
        // The same event twice in one batch (a duplicate, or a reused id if the body differs).
        if (repeat && list.length > 0) list.push(list[0]!);
        return `{"events":[${list.join(',')}]}`;
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(wellFormedEvent, rawKey, rawValue)
      .map(([event, key, value]) => `{"events":[${event}],${JSON.stringify(key)}:${value}}`),
  },
  {
    weight: 1,
    arbitrary: rawValue.map((value) => `{"events":${value}}`),
  },
  { weight: 1, arbitrary: rawBody },
);
const rawReversalBody = fc.oneof(
  { weight: 8, arbitrary: rawEventId.map((id) => `{"id":${id}}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(rawEventId, rawKey, rawValue)
      .map(([id, key, value]) => `{"id":${id},${JSON.stringify(key)}:${value}}`),
  },
  { weight: 1, arbitrary: rawBody },
);
const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      null,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/merge-patch+json',
      'application/json, text/plain',
    ),
  },
);

describe('fuzzing POST /api/events and POST /api/events/reversals', () => {
  const EVENT_RUNS = Math.max(20, Math.round(RUNS / 2));
  it(
    `answers every batch and reversal with a documented status and the envelope, never 5xx (${EVENT_RUNS} runs)`,
    { timeout: 60_000 + EVENT_RUNS * 2 * 1_500 },
    async () => {
      // Two sending clients (ids are per client), and a fan's token (refused: 403).
      const senders = [
        await app.serviceToken('fuzz-sender-a'),
        await app.serviceToken('fuzz-sender-b'),
        tokens[0]!,
      ];
      const seen = new Map<string, number>();
      const count = (label: string) => seen.set(label, (seen.get(label) ?? 0) + 1);
      const operation = fc.oneof(
        { weight: 3, arbitrary: fc.tuple(fc.constant('/api/events' as const), rawEventsBody) },
        {
          weight: 1,
          arbitrary: fc.tuple(fc.constant('/api/events/reversals' as const), rawReversalBody),
        },
      );
      const property = fc.asyncProperty(
        operation,
        fc.oneof(
          { weight: 8, arbitrary: fc.integer({ min: 0, max: 1 }) },
          { weight: 1, arbitrary: fc.constant(2) },
        ),
        contentType,
        async ([path, body], sender, type) => {
          const response = await app.request('POST', path, {
            token: senders[sender],
            rawBody: body,
            contentType: type,
          });
          count(`${path} ${response.status}`);
          expect(response.status, response.text).toBeLessThan(500);
          const statuses = Object.keys(documented[path]?.post?.responses ?? {});
          expect(statuses).toContain(String(response.status));
          expect(response.body, response.text).toBeDefined();
          checkEnvelope(response.status, response.body);
          if (sender === 2) expect(response.status).toBeGreaterThanOrEqual(400);
          if (response.status !== 200) return;
          if (path === '/api/events/reversals') {
            expect(['reversed', 'already_reversed']).toContain(response.body.data.status);
            expect(response.body.data.id).toBe(JSON.parse(body).id);
            return;
          }
          // A batch the server took: one result per event, in order, each consistent with what was sent.
          const sent = JSON.parse(body).events as Array<Record<string, any>>;
          const results = response.body.data.results as Array<Record<string, any>>;
          expect(results).toHaveLength(sent.length);
          results.forEach((result, i) => {
            const event = sent[i]!;
            expect(result.id).toBe(event.id);
            count(`result ${result.status}${result.error ? ` ${result.error.code}` : ''}`);
            if (result.status === 'rejected') {
              expect(REJECTION_CODES).toContain(result.error.code);
              expect(result.error.message.length).toBeGreaterThan(0);
              return;
            }
            const definition = catalog.eventTypes.get(event.type)?.definition;
            expect(definition, `a ${result.status} event of an unknown type`).toBeDefined();
            if (result.status === 'recorded') {
              expect(result.points).toBe(definition!.points * (event.value ?? 1));
              expect(result.reversed).toBe(false);
            }
            expect(Number.isInteger(result.balance) && result.balance >= 0).toBe(true);
          });
        },
      );
      try {
        await fc.assert(property, { numRuns: EVENT_RUNS, seed: SEED, endOnFailure: true });
      } catch (error) {
        process.stderr.write(`fuzz failed: replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}\n`);
        throw error;
      }
      if (process.env.FUZZ_VERBOSE)
        process.stderr.write(`fuzz events: ${JSON.stringify([...seen].sort())}\n`);
      // The run reached the recording, not only the refusals.
      expect([...seen.keys()].some((label) => label === 'result recorded')).toBe(true);
      expect([...seen.keys()].some((label) => label.endsWith(' 400'))).toBe(true);
      expect(await consistencyProblems(app.db)).toEqual([]);
    },
  );
});
