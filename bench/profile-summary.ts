/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF=1
 * npm run bench) by self time: the functions, and the packages, where the CPU
 * went.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top=30]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

// Self time per node: each sample's time delta belongs to the node it hit.
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

/** Where a frame lives: an npm package, our code, node internals or V8. */
function origin(url: string): string {
  if (url === '') return '(v8/native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const own = /\/(dist\/)?(src|db|routers|bench)\//.exec(url);
  return own ? `app:${own[2]}` : url;
}

const byFunction = new Map<string, number>();
const byOrigin = new Map<string, number>();
for (const [id, us] of selfUs) {
  const frame = byId.get(id)!.callFrame;
  const where = origin(frame.url);
  const name = `${frame.functionName || '(anonymous)'}  ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  byOrigin.set(where, (byOrigin.get(where) ?? 0) + us);
}

const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, entries: Map<string, number>, limit: number) => {
  process.stdout.write(`\n${title}\n`);
  for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    process.stdout.write(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}\n`);
  }
};
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s of samples\n`);
print('by origin (self time)', byOrigin, 20);
print('by function (self time)', byFunction, top);

// Inclusive time per origin, over busy samples only: a sample counts for every
// origin on its stack (once each), so "zod 9%" means 9% of the busy samples
// ran inside zod or something zod called. Shows what a layer costs with
// everything under it, which self time spreads thin.
const parent = new Map<number, number>();
for (const node of profile.nodes as (ProfileNode & { children?: number[] })[]) {
  for (const child of node.children ?? []) parent.set(child, node.id);
}
const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);
const inclusive = new Map<string, number>();
let busy = 0;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  if (IDLE.has(byId.get(id)!.callFrame.functionName)) return;
  busy += us;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!.callFrame;
    if (frame.url) seen.add(origin(frame.url));
  }
  for (const where of seen) inclusive.set(where, (inclusive.get(where) ?? 0) + us);
});
process.stdout.write(`\nby origin, inclusive, of ${(busy / 1e6).toFixed(1)} s busy samples\n`);
for (const [name, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
  process.stdout.write(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}\n`);
}
