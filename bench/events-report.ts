/** The report of `npm run bench:events` (bench/events.ts): printed and written to its results folder. */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { adminDb } from './events-tables.js';
import { log, outDir, ROOT, settings, type Sample, type Side } from './events-settings.js';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The target of item 7: the service at least half the baseline's events/s, and no errors. */
const TARGET_RATIO = 0.5;

export async function report(samples: Sample[], fans: number, databaseUrl: string): Promise<void> {
  const db = adminDb(databaseUrl);
  const version = (await sql<{ version: string }>`SELECT version()`.execute(db)).rows[0]!.version;
  // Without autovacuum (this machine's CI configuration) cells written since the last
  // vacuum are read from the heap: the figures depend on it, so the report says which.
  const autovacuum = (await sql<{ autovacuum: string }>`SHOW autovacuum`.execute(db)).rows[0]!
    .autovacuum;
  const distinct = (
    await sql<{ n: string }>`SELECT count(DISTINCT points)::text AS n FROM leaderboard_entries
      WHERE board = 'all'`.execute(db)
  ).rows[0]!.n;
  await db.destroy();
  const stat = (side: Side) => {
    const list = samples.filter((s) => s.side === side);
    return {
      eventsPerSecond: median(list.map((s) => s.eventsPerSecond)),
      p50Ms: median(list.map((s) => s.p50Ms)),
      p99Ms: median(list.map((s) => s.p99Ms)),
      errors: list.reduce((sum, s) => sum + s.errors, 0),
      capped: list.reduce((sum, s) => sum + s.capped, 0),
      events: list.reduce((sum, s) => sum + s.events, 0),
      cpuMsPerEvent: median(list.map((s) => s.cpuMsPerEvent)),
      dbCpuMsPerEvent: median(list.map((s) => s.dbCpuMsPerEvent)),
      rssPeakMb: Math.max(...list.map((s) => s.rssPeakMb)),
    };
  };
  const service = stat('service');
  const baseline = stat('baseline');
  const floor = settings.floor ? stat('floor') : undefined;
  const ratio = service.eventsPerSecond / baseline.eventsPerSecond;
  const floorRatio = floor && floor.eventsPerSecond / baseline.eventsPerSecond;
  const row = (side: Side, s: ReturnType<typeof stat>) =>
    `| ${side} | ${s.eventsPerSecond.toFixed(0)} | ${s.p50Ms.toFixed(1)} / ${s.p99Ms.toFixed(1)} | ` +
    `${s.errors} | ${s.capped} | ${s.events} | ${s.cpuMsPerEvent.toFixed(3)} | ` +
    `${s.dbCpuMsPerEvent.toFixed(3)} | ${s.rssPeakMb.toFixed(0)} |`;
  const checks = [
    `${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'} throughput ${ratio.toFixed(2)} × the baseline (target ≥ ${TARGET_RATIO})`,
    `${service.errors === 0 ? 'PASS' : 'FAIL'} service errors ${service.errors}`,
  ];
  const command = `npm run bench:events -- ${process.argv.slice(2).join(' ')}`.trim();
  const text = [
    `${new Date().toISOString()} · \`${command}\` · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}, ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GB · node ${process.version} · ${version.split(',')[0]} (autovacuum ${autovacuum})`,
    `${fans.toLocaleString('en')} fans (${Number(distinct).toLocaleString('en')} distinct scores), ` +
      `${settings.senders} senders × batches of ${settings.batch} (${settings.types.join(', ')}), ` +
      `${settings.rounds} round(s) × ${settings.duration} s after ${settings.warmup} s of warm-up; medians`,
    '',
    '| server | events/s | batch p50 / p99 ms | errors | capped | events | server CPU ms/event | PostgreSQL CPU ms/event | peak RSS MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('service', service),
    row('baseline', baseline),
    ...(floor ? [row('floor', floor)] : []),
    '',
    `Ratio service / baseline: **${ratio.toFixed(2)}**`,
    ...(floorRatio === undefined
      ? []
      : [
          `Ratio floor / baseline (what item 5's rows alone leave of the baseline): ` +
            `**${floorRatio.toFixed(2)}**; service / floor: ${(service.eventsPerSecond / floor!.eventsPerSecond).toFixed(2)}`,
        ]),
    '',
    ...checks.map((check) => `- ${check}`),
  ].join('\n');
  process.stdout.write(`\n${text}\n`);
  writeFileSync(path.join(outDir, 'summary.md'), `${text}\n`);
  writeFileSync(
    path.join(outDir, 'results.json'),
    `${JSON.stringify({ command, settings, fans, ratio, floorRatio, service, baseline, floor, samples }, null, 2)}\n`,
  );
  log(`results in ${path.relative(ROOT, outDir)}/`);
}
