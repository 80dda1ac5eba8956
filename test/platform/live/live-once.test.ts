import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { LeaderboardUpdateSchema, LiveEventSchema } from '../../../routers/live-schemas.js';
import { openSse, type SseReader } from '../../helpers/live.js';
import { openRawSocket, type RawSocket } from '../../helpers/live-ws.js';
import { uniqueSubject, useTestApp } from '../../helpers/test-app.js';

/**
 * Fan-out without per-stream work (docs/LIVE.md, Fan-out): a message many
 * streams carry is checked against its output schema once and serialised
 * once per instance, over SSE and the WebSocket together, and every stream
 * still gets the bytes it got when each stream did its own (the message as
 * the schema outputs it, `JSON.stringify`ed; the WebSocket frame with the
 * connection's subscription id). Counts JSON.stringify and the schemas'
 * parseAsync in this process, where the test app runs.
 */
const { app } = useTestApp();
const closers: Array<() => void> = [];
afterEach(() => vi.restoreAllMocks());
afterAll(() => {
  for (const close of closers) close();
});

async function signedUp(prefix: string) {
  const token = await app.token(uniqueSubject(prefix));
  const me = await app.request('GET', '/api/user', { token });
  expect(me.status).toBe(200);
  return { token, userId: me.body.data.id as string };
}

/** A raw socket whose frames are also kept as the text the server sent. */
async function socketWithFrames(token: string): Promise<{ raw: RawSocket; frames: string[] }> {
  const raw = await openRawSocket(app.url, { token });
  const frames: string[] = [];
  raw.socket.on('message', (data) => frames.push(data.toString()));
  closers.push(() => raw.close());
  return { raw, frames };
}

async function sse(path: string, token: string, input?: unknown): Promise<SseReader> {
  const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const reader = await openSse(`${app.url}/trpc/${path}${query}`, {
    authorization: `Bearer ${token}`,
  });
  closers.push(() => reader.close());
  expect(reader.status).toBe(200);
  await reader.waitFor((event) => event.event === 'connected');
  return reader;
}

/** The `data:` texts of a reader's messages. */
const texts = (reader: SseReader) =>
  reader.events.filter((event) => event.event === 'message').map((event) => event.data);

/**
 * How many of the JSON.stringify calls seen made `text`, alone or inside a
 * frame (a WebSocket frame stringified whole, message and all).
 */
function madeTimes(results: Array<{ value: unknown }>, text: string) {
  return results.filter((result) => typeof result.value === 'string' && result.value.includes(text))
    .length;
}

/** Resolves once the socket got `count` data messages (its frames are kept by then). */
const until = (raw: RawSocket, count: number) =>
  raw.waitFor(
    () => raw.messages.filter((m) => m !== 'PING' && m.result?.type === 'data').length >= count,
  );

const started = (raw: RawSocket, id: number) =>
  raw.waitFor((m) => m !== 'PING' && m.id === id && m.result?.type === 'started');

describe('one check and one serialisation per message per instance', () => {
  it('myEvents: a write’s events reach 2 SSE and 2 WebSocket streams of their user, each made once', async () => {
    const fan = await signedUp('once-user');
    const readers = [await sse('myEvents', fan.token), await sse('myEvents', fan.token)];
    const sockets = [await socketWithFrames(fan.token), await socketWithFrames(fan.token)];
    sockets.forEach(({ raw }, i) => raw.subscribe(i + 7, 'myEvents'));
    await Promise.all(sockets.map(({ raw }, i) => started(raw, i + 7)));

    const stringify = vi.spyOn(JSON, 'stringify');
    const parse = vi.spyOn(LiveEventSchema, 'parseAsync');
    // Onboarding: two quests completed and awarded, then the fan's ranks.
    const onboarded = await app.request('POST', '/api/user/profile', {
      token: fan.token,
      body: { favoriteTeam: 'Once United' },
    });
    expect(onboarded.status).toBe(201);
    for (const reader of readers) await reader.until(() => texts(reader).length >= 6);
    const dataFrames = (frames: string[]) => frames.filter((f) => f.includes('"type":"data"'));
    for (const { raw } of sockets) await until(raw, 6);
    // What the server did; the checks below stringify and parse themselves.
    const made = [...stringify.mock.results];
    const checks = parse.mock.calls.length;
    vi.restoreAllMocks();

    const sent = texts(readers[0]!);
    expect(sent).toHaveLength(6);
    expect(texts(readers[1]!)).toEqual(sent);
    for (const text of sent) {
      const message = JSON.parse(text) as { id: string };
      // The bytes each stream did its own check and stringify for: the schema's output, stringified.
      expect(text).toBe(JSON.stringify(LiveEventSchema.parse(message)));
      expect(madeTimes(made, text)).toBe(1);
    }
    expect(checks).toBe(6);
    sockets.forEach(({ frames }, i) => {
      expect(dataFrames(frames)).toEqual(
        sent.map((text) => {
          const message = JSON.parse(text) as { id: string };
          return JSON.stringify({
            id: i + 7,
            result: { type: 'data', data: { id: message.id, data: message }, id: message.id },
          });
        }),
      );
    });
  });

  it('leaderboardEvents: a board’s new top reaches 4 fans’ streams over both transports, made once', async () => {
    const team = `Once Board ${Date.now()}`;
    const watchers = [
      await signedUp('once-b1'),
      await signedUp('once-b2'),
      await signedUp('once-b3'),
      await signedUp('once-b4'),
    ];
    const input = { team, top: 5 };
    const readers = [
      await sse('leaderboardEvents', watchers[0]!.token, input),
      await sse('leaderboardEvents', watchers[1]!.token, input),
    ];
    const sockets = [
      await socketWithFrames(watchers[2]!.token),
      await socketWithFrames(watchers[3]!.token),
    ];
    sockets.forEach(({ raw }) => raw.subscribe(3, 'leaderboardEvents', input));
    await Promise.all(sockets.map(({ raw }) => started(raw, 3)));
    for (const reader of readers) await reader.until(() => texts(reader).length >= 1);
    const dataFrames = (frames: string[]) => frames.filter((f) => f.includes('"type":"data"'));
    for (const { raw } of sockets) await until(raw, 1);
    expect(JSON.parse(texts(readers[0]!)[0]!).entries).toEqual([]);

    const stringify = vi.spyOn(JSON, 'stringify');
    const parse = vi.spyOn(LeaderboardUpdateSchema, 'parseAsync');
    const fan = await signedUp('once-fan');
    const onboarded = await app.request('POST', '/api/user/profile', {
      token: fan.token,
      body: { favoriteTeam: team },
    });
    expect(onboarded.status).toBe(201);
    for (const reader of readers) {
      await reader.until(() => texts(reader).length >= 2, 10_000);
    }
    for (const { raw } of sockets) await until(raw, 2);
    const made = [...stringify.mock.results];
    const checks = parse.mock.calls.length;
    vi.restoreAllMocks();

    const text = texts(readers[0]!)[1]!;
    const update = JSON.parse(text) as { entries: Array<{ userId: string }> };
    expect(update.entries.map((entry) => entry.userId)).toEqual([fan.userId]);
    expect(texts(readers[1]!)[1]).toBe(text);
    expect(text).toBe(JSON.stringify(LeaderboardUpdateSchema.parse(update)));
    expect(madeTimes(made, text)).toBe(1);
    expect(checks).toBe(1);
    for (const { frames } of sockets) {
      expect(dataFrames(frames)[1]).toBe(
        JSON.stringify({ id: 3, result: { type: 'data', data: update } }),
      );
    }
  });
});
