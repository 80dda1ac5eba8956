/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`, e.g. BENCH_CPU_PROF=1
 * npm run bench, or bench/profile.ts) by self time: the functions, and the
 * packages, where the CPU went; then by package inclusive of what it calls.
 * A sampling heap profile (.heapprofile, from bench/profile.ts) is summarised
 * by bytes allocated.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile|file.heapprofile> [top=30]
 */
import { readFileSync } from 'node:fs';
import { summariseCpu, summariseHeap, top, type CpuProfile, type HeapProfile } from './profiles.js';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write(
    'usage: tsx bench/profile-summary.ts <file.cpuprofile|.heapprofile> [top]\n',
  );
  process.exit(2);
}
const limit = Number(topArg ?? 30);
const data = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | HeapProfile;
const out = (line: string) => process.stdout.write(`${line}\n`);

if ('head' in data) {
  const heap = summariseHeap(data);
  const pct = (bytes: number) => `${((bytes / heap.totalBytes) * 100).toFixed(1).padStart(5)}%`;
  out(`${file}: ${(heap.totalBytes / 2 ** 20).toFixed(1)} MiB allocated (sampled)`);
  out('\nby origin (self bytes)');
  for (const [name, bytes] of top(heap.byOrigin, 20)) out(`${pct(bytes)}  ${name}`);
  out('\nby function (self bytes)');
  for (const [name, bytes] of top(heap.byFunction, limit)) {
    out(`${pct(bytes)}  ${(bytes / 1024).toFixed(0).padStart(8)} KiB  ${name}`);
  }
} else {
  // bench/profile.ts's preload is sampled while it stops the profiler.
  const cpu = summariseCpu(data, (url) => url.endsWith('bench/profiler-preload.mjs'));
  const pct = (us: number) => `${((us / cpu.busyUs) * 100).toFixed(1).padStart(5)}%`;
  out(
    `${file}: ${(cpu.totalUs / 1e6).toFixed(1)} s of samples, ${(cpu.busyUs / 1e6).toFixed(1)} s busy ` +
      `(${(cpu.garbageCollectorUs / 1e6).toFixed(1)} s of it garbage collection)`,
  );
  out('\nby origin (self time of the busy samples)');
  for (const [name, us] of top(cpu.byOrigin, 20)) {
    out(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
  out('\nby function (self time)');
  for (const [name, us] of top(cpu.byFunction, limit)) {
    out(`${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
  out(`\nby origin, inclusive, of ${(cpu.busyUs / 1e6).toFixed(1)} s busy samples`);
  for (const [name, us] of top(cpu.inclusive, 25)) {
    out(`${((us / cpu.busyUs) * 100).toFixed(1).padStart(5)}%  ${name}`);
  }
}
