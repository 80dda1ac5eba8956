/**
 * The open-loop part of `npm run bench` (BENCH_OPEN_LOOP=1): REST PATCH
 * requests started at a fixed rate, 40 % of the service's closed-loop
 * capacity by default, against the service and the floor (and a
 * BENCH_COMPARE build) in rounds
 * that rotate which goes first. What a fan feels at a load the floor handles
 * easily: latency from when each request was due (bench/http-load.ts), so a
 * stall delays every request behind it, as it would delay fans.
 *
 * A capacity is a side's median req/s in this run's closed-loop rest-patch
 * rounds, or a closed-loop round of its own when rest-patch did not run. The
 * default rate is OPEN_RATE_SHARE of the service's, the slower of the two, so
 * both hold it and the p99s compare queueing, not overload (at half the
 * floor's capacity the service, slower than that, fell behind for the whole
 * round and its p99 was the length of its queue). BENCH_OPEN_RATE sets the
 * rate instead.
 */
import { load } from './closed-loop.js';
import { fixedCount, openLoop, type BenchUser, type OpenLoopResult } from './http-load.js';
import { readCpuMs } from './proc.js';
import {
  env,
  log,
  median,
  SCENARIOS,
  settings,
  type Running,
  type Sample,
  type Side,
} from './settings.js';

export interface OpenLoopSample extends OpenLoopResult {
  side: Side;
  round: number;
  /** Server process CPU per request over the load. */
  cpuMsPerRequest: number;
}

const REST_PATCH = SCENARIOS.find((s) => s.name === 'rest-patch')!;

/** The default open-loop rate, as a share of the service's closed-loop REST PATCH capacity. */
export const OPEN_RATE_SHARE = 0.4;

/** The default open-loop rate for the capacities measured: both sides must hold it. */
export function defaultOpenRate(capacity: { service: number; floor: number }): number {
  return Math.max(1, Math.round(OPEN_RATE_SHARE * Math.min(capacity.service, capacity.floor)));
}

export async function openLoopRounds(options: {
  targets: Partial<Record<Side, Running>>;
  /** Each side's users (the floor shares the service's). */
  usersOf: (side: Side) => readonly BenchUser[];
  /** The closed-loop samples so far (the floor's rest-patch rounds give its capacity). */
  samples: readonly Sample[];
  /** A token file of the service's users, for a capacity round of the floor's own. */
  poolFile: string;
}): Promise<OpenLoopRun> {
  const { targets, usersOf } = options;
  const capacityOf = async (side: 'service' | 'floor') => {
    const fromRounds = options.samples
      .filter((s) => s.scenario === 'rest-patch' && s.side === side)
      .map((s) => s.rps);
    if (fromRounds.length > 0 && median(fromRounds) > 0) return median(fromRounds);
    log(`open loop: measuring the ${side}’s capacity (closed loop, rest-patch)`);
    await load(targets[side]!, REST_PATCH, options.poolFile, settings.warmup);
    return (await load(targets[side]!, REST_PATCH, options.poolFile, settings.duration)).rps;
  };
  const capacity = { service: await capacityOf('service'), floor: await capacityOf('floor') };
  const rate = env.BENCH_OPEN_RATE ? Number(env.BENCH_OPEN_RATE) : defaultOpenRate(capacity);
  const sides = (['service', 'floor', 'previous'] as const).filter((side) => targets[side]);
  const targetOf = (side: Side) => ({
    url: targets[side]!.url,
    ...REST_PATCH.service,
    kind: REST_PATCH.kind,
    users: usersOf(side),
  });
  log(
    `open loop: ${rate} req/s (closed-loop capacity: service ${capacity.service.toFixed(0)}, ` +
      `floor ${capacity.floor.toFixed(0)} req/s)`,
  );
  // Warm each side at the rate (the floor fills its subject map on first sight).
  for (const side of sides) {
    await fixedCount(targetOf(side), Math.min(2000, rate * settings.warmup), 10);
    await openLoop(targetOf(side), rate, settings.warmup);
  }
  const samples: OpenLoopSample[] = [];
  for (let round = 1; round <= settings.rounds; round++) {
    const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]!);
    for (const side of order) {
      const pid = targets[side]!.child.pid!;
      const cpuBefore = readCpuMs(pid);
      const result = await openLoop(targetOf(side), rate, settings.duration);
      const cpuMs = readCpuMs(pid) - cpuBefore;
      const sample = {
        ...result,
        side,
        round,
        cpuMsPerRequest: cpuMs / Math.max(1, result.requests),
      };
      samples.push(sample);
      log(
        `open loop ${side} round ${round}: ${rate} req/s, p50 ${result.p50Ms.toFixed(1)} ms, ` +
          `p99 ${result.p99Ms.toFixed(1)} ms, p99.9 ${result.p999Ms.toFixed(1)} ms, ` +
          `max ${result.maxMs.toFixed(1)} ms, errors ${result.errors}, ` +
          `generator behind by up to ${result.generatorLagMs.toFixed(1)} ms`,
      );
    }
  }
  return { capacity, samples };
}

export interface OpenLoopRun {
  /** Closed-loop REST PATCH req/s of the service and of the floor in this run. */
  capacity: { service: number; floor: number };
  samples: OpenLoopSample[];
}

/** The open loop's table and its target (service p99 ≤ 1.5 × the floor's), as lines and checks. */
export function openLoopReport(run: OpenLoopRun | undefined): {
  lines: string[];
  checks: [pass: boolean, text: string][];
} {
  if (!run || run.samples.length === 0) return { lines: [], checks: [] };
  const stat = (side: Side) => {
    const list = run.samples.filter((s) => s.side === side);
    if (list.length === 0) return undefined;
    const m = (pick: (s: OpenLoopSample) => number) => median(list.map(pick));
    return {
      p50: m((s) => s.p50Ms),
      p99: m((s) => s.p99Ms),
      p999: m((s) => s.p999Ms),
      max: Math.max(...list.map((s) => s.maxMs)),
      errors: list.reduce((sum, s) => sum + s.errors, 0),
      lag: Math.max(...list.map((s) => s.generatorLagMs)),
      cpu: m((s) => s.cpuMsPerRequest),
    };
  };
  const rate = run.samples[0]!.rate;
  const lines = [
    '',
    `Open loop: REST PATCH started at ${rate} req/s (${env.BENCH_OPEN_RATE ? 'BENCH_OPEN_RATE' : `${OPEN_RATE_SHARE * 100} % of the service's closed-loop capacity`}; ` +
      `closed-loop capacity: service ${run.capacity.service.toFixed(0)}, floor ${run.capacity.floor.toFixed(0)} req/s), ` +
      `latency from each request's due time; medians of rounds:`,
    '',
    '| side | p50 ms | p99 ms | p99.9 ms | max ms | errors | server CPU ms/req | generator behind by, at most, ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const side of ['service', 'floor', 'previous'] as const) {
    const s = stat(side);
    if (!s) continue;
    lines.push(
      `| ${side} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.p999.toFixed(1)} | ${s.max.toFixed(1)} | ` +
        `${s.errors} | ${s.cpu.toFixed(2)} | ${s.lag.toFixed(1)} |`,
    );
  }
  const service = stat('service')!;
  const floor = stat('floor')!;
  const ratio = service.p99 / floor.p99;
  return {
    lines,
    checks: [
      [
        ratio <= 1.5,
        `open loop at ${rate} req/s: service p99 ${ratio.toFixed(2)} × the floor's (target ≤ 1.5)`,
      ],
      [service.errors === 0, `open loop: service errors ${service.errors}`],
    ],
  };
}
