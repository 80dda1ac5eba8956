/**
 * Preloaded into a server by `npm run bench:profile` (node --import):
 * profiles the process from inside (node:inspector) between two SIGUSR2s,
 * so a profile covers exactly the requests sent in between, not start-up,
 * onboarding or warm-up.
 *
 * BENCH_PROFILE_DIR is where the profiles go. At the first SIGUSR2 of a pair
 * the preload reads BENCH_PROFILE_DIR/next-label, `<kind> <label>`, where kind
 * is "cpu" (a .cpuprofile, sampled every 100 µs) or "heap" (a sampling heap
 * profile of every allocation, kept or collected, one sample per 4 KiB on
 * average), writes `<label>.ready` once the profiler runs, and at the second
 * writes `<label>.cpuprofile` or `<label>.heapprofile`, then `<label>.done`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

const dir = process.env.BENCH_PROFILE_DIR;
if (!dir) throw new Error('BENCH_PROFILE_DIR is not set');

const session = new Session();
session.connect();
let label;
let kind;

async function start() {
  [kind, label] = readFileSync(path.join(dir, 'next-label'), 'utf8').trim().split(' ');
  if (kind === 'cpu') {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  } else {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  writeFileSync(path.join(dir, `${label}.ready`), '');
}

async function stop() {
  const { profile } =
    kind === 'cpu'
      ? await session.post('Profiler.stop')
      : await session.post('HeapProfiler.stopSampling');
  const file = path.join(dir, `${label}.${kind === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
  writeFileSync(file, JSON.stringify(profile));
  writeFileSync(path.join(dir, `${label}.done`), '');
  label = undefined;
}

let busy = Promise.resolve();
process.on('SIGUSR2', () => {
  busy = busy.then(() => (label === undefined ? start() : stop()));
});
