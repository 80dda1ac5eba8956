/**
 * The streams of `npm run bench:live` (bench/live.ts): its myEvents streams
 * (LIVE_BENCH_STREAMS_PER_USER per fan, at most 100 per loopback address),
 * its leaderboardEvents streams on 50 team boards, and the one beyond the
 * limit, which must be refused with Retry-After.
 */
import type { Agent } from 'node:http';
import type { BenchIssuer } from './issuer.js';
import { openSocketStream, openStream, pool, type Stream } from './live-clients.js';
import type { LiveService } from './live-service.js';
import { settings } from './live-settings.js';
import { watching, type Watch, type Writer } from './live-writes.js';

/** A fan of the run: its identity's token and its place in the list. */
export interface StreamFan extends Writer {
  index: number;
  token: string;
}

/**
 * Opens `streams` myEvents streams (stream n on instance n mod instances) and
 * `boardStreams` leaderboardEvents ones, then one more than the first
 * instance's limit. Each stream's close goes into `closers`.
 */
export async function openStreams<F extends StreamFan>({
  services,
  agent,
  issuer,
  dbName,
  fans,
  streams,
  boardStreams,
  closers,
}: {
  services: LiveService[];
  agent: Agent;
  issuer: BenchIssuer;
  dbName: string;
  fans: F[];
  streams: number;
  boardStreams: number;
  closers: Array<() => void>;
}): Promise<{
  watches: Watch<F>[];
  /** leaderboardEvents messages received so far. */
  boardUpdates: () => number;
  /** The stream beyond the limit (closed): its `retryAfter` is set when it was refused. */
  beyond: Stream;
}> {
  const first = services[0]!;
  const serviceOf = (n: number) => services[n % services.length]!;
  const slots = Array.from({ length: streams }, (_, n) => n);
  const address = (n: number) =>
    `127.${1 + Math.floor(n / settings.perAddress / 62_500)}.${Math.floor(n / settings.perAddress / 250) % 250}.${2 + (Math.floor(n / settings.perAddress) % 250)}`;
  /** A stream over the transport the run measures (`procedure` with `input`), on `service`. */
  const openOne = (
    service: LiveService,
    token: string,
    from: string,
    onEvent: (data: string) => void,
    procedure = 'myEvents',
    input?: unknown,
  ): Promise<Stream> =>
    settings.transport === 'ws'
      ? openSocketStream(service.base, token, from, onEvent, procedure, input)
      : openStream(
          service.base,
          token,
          from,
          agent,
          onEvent,
          input === undefined
            ? procedure
            : `${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`,
        );
  const watches: Watch<F>[] = [];
  await pool(slots, 50, async (n) => {
    const { watch, onEvent } = watching(fans[Math.floor(n / settings.perUser)]!);
    watches.push(watch);
    const stream = await openOne(serviceOf(n), watch.writer.token, address(n), onEvent);
    if (stream.retryAfter !== undefined) throw new Error(`stream ${n} was refused`);
    closers.push(stream.close);
  });
  // Leaderboard streams: identities of their own (the per-user limit), after the myEvents addresses.
  const boardSlots = Array.from({ length: boardStreams }, (_, n) => n);
  const boardTokens = Array.from({ length: Math.ceil(boardStreams / settings.perUser) }, (_, i) =>
    issuer.sign(`live-bench-${dbName}-board-${i}`),
  );
  let boardUpdates = 0;
  await pool(boardSlots, 50, async (n) => {
    const stream = await openOne(
      serviceOf(streams + n),
      boardTokens[Math.floor(n / settings.perUser)]!,
      address(streams + settings.perAddress + n),
      () => (boardUpdates += 1),
      'leaderboardEvents',
      { team: `Team ${n % 50}`, top: 10 },
    );
    if (stream.retryAfter !== undefined) throw new Error(`board stream ${n} was refused`);
    closers.push(stream.close);
  });
  // One more than the limit (of the first instance, which holds its share): refused, with Retry-After, not a crash.
  const extra = issuer.sign(`live-bench-${dbName}-extra`);
  const beyond = await openOne(
    first,
    extra,
    address(streams + boardStreams + 2 * settings.perAddress),
    () => {},
  );
  beyond.close();
  return { watches, boardUpdates: () => boardUpdates, beyond };
}
