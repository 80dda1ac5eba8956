/**
 * `npm run bench:events -- --burst N` (issue 37, item 5): the final whistle.
 * N events, one `prediction_correct` each (no cap), for N distinct seeded
 * fans, in batches of B (100), sent as fast as S senders (10) can send them
 * to the service alone (no baseline). Two times from the first send:
 *
 * - **recorded**: until the last batch was answered, every event of it
 *   acknowledged (`recorded`; anything else is an error);
 * - **last rank_changed in the outbox**: until the count of `rank_changed`
 *   rows the burst added to the outbox (`live_events` rows after the last
 *   one before the burst) was last seen to grow. The outbox is polled every
 *   100 ms on a connection of its own, from the first send until the count
 *   has not grown for 2 s after the last acknowledgement: the time is that
 *   of the poll that first saw the final count, so it is late by at most
 *   one poll interval.
 *
 * Also: batch p50/p99, the burst's `points_awarded` rows of its events
 * (must be N) and `rank_changed` rows. Printed and written to
 * bench/results/events-<time>/ (summary.md, burst.json).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { batchBody, postEvents, type EventInput } from './events-post.js';
import { CLIENT_ID, log, outDir, ROOT, run, settings, type Running } from './events-settings.js';

const POLL_MS = 100;
const SETTLE_MS = 2_000;
const GIVE_UP_MS = 30 * 60_000;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** The burst's batches: event k names fan seed-(1 + (offset + k·stride) mod fans), all distinct. */
function batches(count: number, fans: number): EventInput[][] {
  let stride = 1 + Math.floor(Math.random() * fans);
  while (gcd(stride, fans) !== 1) stride += 1;
  const offset = Math.floor(Math.random() * fans);
  const out: EventInput[][] = [];
  for (let start = 0; start < count; start += settings.batch) {
    const events: EventInput[] = [];
    for (let k = start; k < Math.min(count, start + settings.batch); k += 1) {
      events.push({
        id: `${run}-burst-${k}`,
        subject: `seed-${1 + ((offset + k * stride) % fans)}`,
        type: 'prediction_correct',
      });
    }
    out.push(events);
  }
  return out;
}

export async function burst(
  service: Running,
  token: string,
  fans: number,
  databaseUrl: string,
): Promise<void> {
  const count = settings.burst!;
  const pending = batches(count, fans);
  const outbox = new pg.Client({ connectionString: databaseUrl });
  await outbox.connect();
  try {
    const before = (
      await outbox.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM live_events')
    ).rows[0]!.id;
    const rankChanged = async () =>
      Number(
        (
          await outbox.query<{ n: string }>(
            "SELECT count(*)::text AS n FROM live_events WHERE id > $1 AND type = 'rank_changed'",
            [before],
          )
        ).rows[0]!.n,
      );
    log(
      `burst: ${count.toLocaleString('en')} events for as many fans of ${fans.toLocaleString('en')}, ` +
        `${settings.senders} senders × batches of ${settings.batch}`,
    );

    const started = performance.now();
    let acknowledgedAt: number | undefined;
    let seen = 0;
    let seenAt = started;
    const poller = (async () => {
      for (;;) {
        const n = await rankChanged();
        const now = performance.now();
        if (n > seen) {
          seen = n;
          seenAt = now;
        }
        const quiet =
          acknowledgedAt !== undefined && now - Math.max(seenAt, acknowledgedAt) > SETTLE_MS;
        if (quiet || now - started > GIVE_UP_MS) break;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    })();

    const latencies: number[] = [];
    let recorded = 0;
    let errors = 0;
    let firstError: string | undefined;
    let next = 0;
    await Promise.all(
      Array.from({ length: settings.senders }, async () => {
        while (next < pending.length) {
          const events = pending[next++]!;
          const answer = await postEvents(service.url, token, batchBody(events));
          if (answer.ms !== undefined) latencies.push(answer.ms);
          if (answer.error !== undefined) {
            errors += events.length;
            firstError ??= answer.error;
            continue;
          }
          for (const result of answer.results) {
            if (result.status === 'recorded') recorded += 1;
            else {
              errors += 1;
              firstError ??= JSON.stringify(result);
            }
          }
        }
      }),
    );
    acknowledgedAt = performance.now();
    await poller;
    const settled = performance.now() - Math.max(seenAt, acknowledgedAt) > SETTLE_MS;

    const awarded = Number(
      (
        await outbox.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM live_events WHERE id > $1 AND type = 'points_awarded'
             AND payload -> 'source' ->> 'kind' = 'event'
             AND payload -> 'source' ->> 'clientId' = $2
             AND payload -> 'source' ->> 'eventId' LIKE $3`,
          [before, CLIENT_ID, `${run}-burst-%`],
        )
      ).rows[0]!.n,
    );
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
    const result = {
      events: count,
      fans,
      senders: settings.senders,
      batch: settings.batch,
      recordedMs: acknowledgedAt - started,
      lastRankChangedMs: seenAt - started,
      settled,
      eventsPerSecond: recorded / ((acknowledgedAt - started) / 1000),
      batchP50Ms: at(0.5),
      batchP99Ms: at(0.99),
      recorded,
      errors,
      firstError,
      pointsAwardedRows: awarded,
      rankChangedRows: seen,
    };
    const command = `npm run bench:events -- ${process.argv.slice(2).join(' ')}`.trim();
    const checks = [
      `${errors === 0 ? 'PASS' : 'FAIL'} errors ${errors}${firstError ? ` (first: ${firstError})` : ''}`,
      `${awarded === count ? 'PASS' : 'FAIL'} points_awarded rows of the burst's events: ${awarded} of ${count}`,
      `${settled ? 'PASS' : 'FAIL'} the outbox's rank_changed count settled`,
    ];
    const text = [
      `${new Date().toISOString()} · \`${command}\` · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}, ` +
        `${Math.round(os.totalmem() / 2 ** 30)} GB · node ${process.version}`,
      `${count.toLocaleString('en')} events for ${count.toLocaleString('en')} distinct fans of ` +
        `${fans.toLocaleString('en')}, ${settings.senders} senders × batches of ${settings.batch}`,
      '',
      '| until | s |',
      '| --- | ---: |',
      `| the last event recorded (acknowledged) | ${(result.recordedMs / 1000).toFixed(2)} |`,
      `| the last rank_changed in the outbox | ${(result.lastRankChangedMs / 1000).toFixed(2)} |`,
      '',
      `${result.eventsPerSecond.toFixed(0)} events/s; batch p50 ${result.batchP50Ms.toFixed(0)} ms, ` +
        `p99 ${result.batchP99Ms.toFixed(0)} ms; ${seen.toLocaleString('en')} rank_changed rows`,
      '',
      ...checks.map((check) => `- ${check}`),
    ].join('\n');
    process.stdout.write(`\n${text}\n`);
    writeFileSync(path.join(outDir, 'summary.md'), `${text}\n`);
    writeFileSync(
      path.join(outDir, 'burst.json'),
      `${JSON.stringify({ command, ...result }, null, 2)}\n`,
    );
    log(`results in ${path.relative(ROOT, outDir)}/`);
  } finally {
    await outbox.end();
  }
}
