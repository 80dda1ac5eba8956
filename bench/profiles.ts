/**
 * Reading V8 profiles: a .cpuprofile (`node --cpu-prof`, or bench/profile.ts)
 * by self time and by package inclusive of what each package calls, and a
 * sampling heap profile (bench/profile.ts) by bytes allocated. Used by
 * bench/profile-summary.ts (a CLI) and bench/profile.ts (per request).
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface CpuNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

export interface HeapProfile {
  head: HeapNode;
}

/** Where a frame lives: an npm package, our code, node internals or V8. */
export function origin(url: string): string {
  if (url === '') return '(v8/native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node:internal';
  const own = /\/(dist\/)?(src|db|routers|bench)\//.exec(url);
  return own ? `app:${own[2]}` : url;
}

function frameName(frame: CallFrame): string {
  const where = origin(frame.url);
  return `${frame.functionName || '(anonymous)'}  ${where}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
}

/** Samples that are not the process doing work. */
const IDLE = new Set(['(idle)', '(program)']);

export interface CpuSummary {
  /** µs of samples, all of them. */
  totalUs: number;
  /** µs of samples that were not idle (garbage collection included). */
  busyUs: number;
  garbageCollectorUs: number;
  /** Self time of the busy samples by origin and by function, µs. */
  byOrigin: Map<string, number>;
  byFunction: Map<string, number>;
  /** Inclusive time by origin over busy samples (an origin counts once per sample), µs. */
  inclusive: Map<string, number>;
}

/**
 * `exclude`: samples with a frame whose URL it matches are left out entirely
 * (bench/profile.ts leaves out its profiler preload: stopping the profiler is
 * sampled too).
 */
export function summariseCpu(
  profile: CpuProfile,
  exclude: (url: string) => boolean = () => false,
): CpuSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const add = (map: Map<string, number>, key: string, us: number) =>
    map.set(key, (map.get(key) ?? 0) + us);
  const summary: CpuSummary = {
    totalUs: 0,
    busyUs: 0,
    garbageCollectorUs: 0,
    byOrigin: new Map(),
    byFunction: new Map(),
    inclusive: new Map(),
  };
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    const urls: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)!.callFrame.url;
      if (url) urls.push(url);
    }
    if (urls.some(exclude)) return;
    summary.totalUs += us;
    if (IDLE.has(frame.functionName)) return;
    summary.busyUs += us;
    add(summary.byOrigin, origin(frame.url), us);
    add(summary.byFunction, frameName(frame), us);
    if (frame.functionName === '(garbage collector)') summary.garbageCollectorUs += us;
    for (const where of new Set(urls.map(origin))) add(summary.inclusive, where, us);
  });
  return summary;
}

export interface HeapSummary {
  /** Bytes allocated in the window (sampled, so an estimate), with self bytes by origin and function. */
  totalBytes: number;
  byOrigin: Map<string, number>;
  byFunction: Map<string, number>;
}

export function summariseHeap(profile: HeapProfile): HeapSummary {
  const summary: HeapSummary = { totalBytes: 0, byOrigin: new Map(), byFunction: new Map() };
  const walk = (node: HeapNode) => {
    if (node.selfSize > 0) {
      summary.totalBytes += node.selfSize;
      const where = origin(node.callFrame.url);
      summary.byOrigin.set(where, (summary.byOrigin.get(where) ?? 0) + node.selfSize);
      const name = frameName(node.callFrame);
      summary.byFunction.set(name, (summary.byFunction.get(name) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  return summary;
}

/** The `limit` largest entries, largest first. */
export function top(map: Map<string, number>, limit: number): [string, number][] {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, limit);
}
