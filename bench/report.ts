/** The bench run's tables, target checks and results files. */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import {
  log,
  median,
  outDir,
  ROOT,
  settings,
  smoke,
  type Sample,
  type Side,
  type TailDecomposition,
} from './settings.js';
import { openLoopReport } from './open-loop.js';

export async function machine(admin: Kysely<unknown>) {
  const { rows } = await sql<{ version: string }>`select version()`.execute(admin);
  return {
    date: new Date().toISOString(),
    cpu: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0]?.version.split(',')[0] ?? 'unknown',
    command: `npm run bench${smoke ? ' -- --smoke' : ''}`,
    settings,
  };
}

/**
 * The targets (issue 41, and the earlier ones it keeps), judged on one run's
 * medians: throughput against the same-SQL baseline (`baseline`), the floor
 * (`floor`) or the service's own REST PATCH (`restPatch`); p99 at saturation
 * against the same-SQL baseline's (`p99`) and the floor's (`floorP99`). The
 * open loop's target is in bench/open-loop.ts.
 */
const TARGETS: Record<
  string,
  { baseline?: number; floor?: number; floorP99?: number; restPatch?: number; p99?: number }
> = {
  'rest-patch': { baseline: 0.9, floor: 0.5, floorP99: 2, p99: 1.5 },
  'trpc-updateUser': { restPatch: 0.9, p99: 1.5 },
  'onboard-first': { baseline: 0.9, p99: 1.5 },
};
const RSS_LIMIT_MB = 200;

export function report(
  samples: Sample[],
  openLoop: Parameters<typeof openLoopReport>[0],
  info: Awaited<ReturnType<typeof machine>>,
): void {
  const rows: string[] = [];
  const checks: string[] = [];
  const summary: Record<string, unknown>[] = [];
  const stat = (scenario: string, side: Side) => {
    const list = samples.filter((s) => s.scenario === scenario && s.side === side);
    if (list.length === 0) return undefined;
    return {
      rps: median(list.map((s) => s.rps)),
      p50: median(list.map((s) => s.p50Ms)),
      p99: median(list.map((s) => s.p99Ms)),
      errors: list.reduce((sum, s) => sum + s.errors, 0),
      rss: Math.max(...list.map((s) => s.rssPeakMb)),
      cpu: median(list.map((s) => s.cpuMsPerRequest)),
      dbCpu: median(list.map((s) => s.dbCpuMsPerRequest)),
    };
  };
  const check = (pass: boolean, text: string) => checks.push(`${pass ? 'PASS' : 'FAIL'} ${text}`);
  const restPatch = stat('rest-patch', 'service');
  for (const scenario of [...new Set(samples.map((s) => s.scenario))]) {
    const svc = stat(scenario, 'service')!;
    const base = stat(scenario, 'baseline')!;
    const floor = stat(scenario, 'floor');
    const ratio = svc.rps / base.rps;
    const floorRatio = floor ? svc.rps / floor.rps : undefined;
    const p99Ratio = svc.p99 / base.p99;
    const cpuRatio = base.cpu / svc.cpu;
    summary.push({
      scenario,
      service: svc,
      baseline: base,
      floor,
      ratio,
      floorRatio,
      p99Ratio,
      cpuRatio,
    });
    rows.push(
      `| ${scenario} | ${svc.rps.toFixed(0)} | ${base.rps.toFixed(0)} | **${ratio.toFixed(2)}** | ` +
        `${floor ? floor.rps.toFixed(0) : '–'} | ${floorRatio ? `**${floorRatio.toFixed(2)}**` : '–'} | ` +
        `${svc.p50.toFixed(1)} / ${svc.p99.toFixed(1)} | ${base.p50.toFixed(1)} / ${base.p99.toFixed(1)} | ` +
        `${p99Ratio.toFixed(2)} | ${svc.errors} / ${base.errors}${floor ? ` / ${floor.errors}` : ''} | ` +
        `${svc.rss.toFixed(0)} / ${base.rss.toFixed(0)}${floor ? ` / ${floor.rss.toFixed(0)}` : ''} | ` +
        `${svc.cpu.toFixed(2)} / ${base.cpu.toFixed(2)}${floor ? ` / ${floor.cpu.toFixed(2)}` : ''} | ${cpuRatio.toFixed(2)} | ` +
        `${svc.dbCpu.toFixed(2)} / ${base.dbCpu.toFixed(2)}${floor ? ` / ${floor.dbCpu.toFixed(2)}` : ''} |`,
    );
    const target = TARGETS[scenario];
    if (target?.baseline !== undefined) {
      check(
        ratio >= target.baseline,
        `${scenario} throughput ${ratio.toFixed(2)} × same-SQL baseline (target ≥ ${target.baseline})`,
      );
    }
    if (target?.floor !== undefined && floorRatio !== undefined) {
      check(
        floorRatio >= target.floor,
        `${scenario} throughput ${floorRatio.toFixed(2)} × floor (target ≥ ${target.floor})`,
      );
    }
    if (target?.floorP99 !== undefined && floor) {
      const floorP99Ratio = svc.p99 / floor.p99;
      check(
        floorP99Ratio <= target.floorP99,
        `${scenario} p99 ${floorP99Ratio.toFixed(2)} × the floor's (target ≤ ${target.floorP99})`,
      );
    }
    if (target?.restPatch !== undefined && restPatch) {
      const own = svc.rps / restPatch.rps;
      check(
        own >= target.restPatch,
        `${scenario} throughput ${own.toFixed(2)} × the service's REST PATCH (target ≥ ${target.restPatch})`,
      );
    }
    if (target?.p99 !== undefined) {
      check(
        p99Ratio <= target.p99,
        `${scenario} p99 ${p99Ratio.toFixed(2)} × same-SQL baseline (target ≤ ${target.p99})`,
      );
    }
    check(svc.errors === 0, `${scenario} service errors ${svc.errors}`);
    check(
      svc.rss <= RSS_LIMIT_MB,
      `${scenario} service RSS peak ${svc.rss.toFixed(0)} MB (target ≤ ${RSS_LIMIT_MB})`,
    );
  }
  const previousRows = [...new Set(samples.map((s) => s.scenario))].flatMap((scenario) => {
    const svc = stat(scenario, 'service')!;
    const prev = stat(scenario, 'previous');
    if (!prev) return [];
    return [
      `| ${scenario} | ${svc.rps.toFixed(0)} / ${prev.rps.toFixed(0)} | **${(svc.rps / prev.rps).toFixed(2)}** | ` +
        `${svc.p99.toFixed(1)} / ${prev.p99.toFixed(1)} | ${svc.cpu.toFixed(2)} / ${prev.cpu.toFixed(2)} | ` +
        `${svc.dbCpu.toFixed(2)} / ${prev.dbCpu.toFixed(2)} | ${prev.errors} | ${prev.rss.toFixed(0)} |`,
    ];
  });
  const tailRows = [...new Set(samples.map((s) => s.scenario))].flatMap((scenario) => {
    const tails = samples
      .filter((s) => s.scenario === scenario && s.side === 'service' && s.tail)
      .map((s) => s.tail!);
    if (tails.length === 0) return [];
    const m = (pick: (t: TailDecomposition) => number) => median(tails.map(pick));
    const svc = stat(scenario, 'service')!;
    return [
      `| ${scenario} | ${svc.p99.toFixed(1)} | ${m((t) => t.serverP50Ms)} / ${m((t) => t.serverP99Ms)} | ` +
        `${m((t) => t.poolWaitP50Ms)} / ${m((t) => t.poolWaitP99Ms)} | ${m((t) => t.eventLoopP99Ms).toFixed(1)} / ` +
        `${m((t) => t.eventLoopMaxMs).toFixed(1)} | ${m((t) => t.gcMsPerSecond).toFixed(1)} | ${m((t) => t.gcMajorCount)} |`,
    ];
  });
  const open = openLoopReport(openLoop);
  for (const [pass, text] of open.checks) check(pass, text);
  const table = [
    `${info.date} · ${info.command} · ${info.cpu}, ${info.memoryGb} GB · node ${info.node} · ${info.postgres}`,
    `${settings.rounds} round(s) × ${settings.duration} s at ${settings.connections} connections; medians; wrk on the same machine`,
    '',
    '| scenario | service req/s | baseline req/s | ratio | floor req/s | ratio to floor | service p50 / p99 ms | baseline p50 / p99 ms | p99 ratio | errors svc / base / floor | peak RSS MB svc / base / floor | server CPU ms/req svc / base / floor | CPU-efficiency ratio (base/svc) | PostgreSQL CPU ms/req svc / base / floor |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    ...checks.map((c) => `- ${c}`),
    ...(tailRows.length > 0
      ? [
          '',
          'Where the service’s time went (its /metrics over each load; medians of rounds; histogram percentiles are bucket upper bounds):',
          '',
          '| scenario | client p99 ms | server p50 / p99 ms | pool wait p50 / p99 ms | event-loop delay p99 / max ms | GC ms per s | major GCs |',
          '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
          ...tailRows,
        ]
      : []),
    ...open.lines,
    ...(previousRows.length > 0
      ? [
          '',
          `The service against ${settings.compare} (BENCH_COMPARE), same rounds:`,
          '',
          '| scenario | req/s now / then | ratio | p99 ms now / then | server CPU ms/req now / then | PostgreSQL CPU ms/req now / then | errors then | peak RSS MB then |',
          '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
          ...previousRows,
        ]
      : []),
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  writeFileSync(path.join(outDir, 'summary.md'), `${table}\n`);
  writeFileSync(
    path.join(outDir, 'results.json'),
    `${JSON.stringify({ ...info, summary, samples, openLoop }, null, 2)}\n`,
  );
  log(`results in ${path.relative(ROOT, outDir)}/`);
}
