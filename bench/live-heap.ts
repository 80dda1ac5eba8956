/**
 * `npm run bench:live-heap`: where an open stream's heap goes. Runs
 * `bench/live.ts` with LIVE_BENCH_HEAP_STREAMS streams (1,000) and no write
 * load, which has the service write a heap snapshot (after a full GC) before
 * and with the streams open (LIVE_BENCH_HEAP_SNAPSHOTS), then diffs the two:
 * the bytes and objects each kind of heap object (its constructor or function
 * name, within its V8 node type) gained, per stream, each put down to whose it
 * is (ours, tRPC's, Node's HTTP, Node's Web Streams, undici's Fetch classes, V8's
 * own) by the table OWNERS. Prints one JSON summary; a memory census, not a
 * timing figure. `npm run bench:live-heap -- before.heapsnapshot
 * after.heapsnapshot 1000` diffs two snapshots already written.
 *
 * LIVE_BENCH_TRANSPORT (sse, ws) is passed on: the census of either transport.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/**
 * Whose a function is, by the script it was compiled from (first match wins):
 * the service's own code, a package, or a part of Node.
 */
const SCRIPT_OWNERS: Array<[RegExp, string]> = [
  [/node_modules\/@trpc\//, 'trpc'],
  [
    /node_modules\/(express|router|body-parser|finalhandler|send|serve-static|on-finished)\//,
    'express',
  ],
  [/node_modules\/(pino|pino-http|thread-stream|sonic-boom)\//, 'pino'],
  [/node_modules\/ws\//, 'ws'],
  [/node_modules\/(zod)\//, 'zod'],
  [/node_modules\/(pg|pg-pool|pg-protocol|kysely)\//, 'database driver'],
  [/node_modules\//, 'other packages'],
  [/\/dist\/(src|routers|db)\//, 'ours'],
  [/^node:internal\/webstreams\//, 'node web streams'],
  [/^node:internal\/deps\/undici\//, 'undici'],
  [/^node:internal\/(abort_controller|event_target)/, 'node abort/events'],
  [
    /^node:(_http_|http|internal\/http|net|internal\/stream_base|internal\/streams|stream)/,
    'node http',
  ],
  [/^node:internal\/timers|^node:timers/, 'node timers'],
  [/^node:/, 'node (other)'],
];

/** Objects whose class says whose they are, wherever they hang. */
const CLASS_OWNERS: Array<[RegExp, string]> = [
  [/^(StreamInbox|BoardWatch)$/, 'ours'],
  [
    /^(Readable|Writable|Transform)Stream|^(ReadableStream|WritableStream|TransformStream|ReadableByteStream)\w+$/,
    'node web streams',
  ],
  [/^(Request|Response|Headers|HeadersList)$/, 'undici'],
  [/^(AbortController|AbortSignal|EventTarget)$/, 'node abort/events'],
  [/^(IncomingMessage|ServerResponse|Socket|TCP|HTTPParser|WriteWrap|ShutdownWrap)$/, 'node http'],
  [/^(WebSocket|Receiver|Sender)$/, 'ws'],
  [/^(Timeout|TimersList)$/, 'node timers'],
];

/**
 * Per node: its kind (`type:name`, names of strings and code left out: they
 * are their content) and its owner. A function is owned by its script; an
 * object of a known class by that class; anything else (arrays, contexts,
 * plain objects, promises, strings) by the nearest such node above it on the
 * path from the GC roots by which the heap is first reached (a breadth-first
 * spanning tree, weak edges left out): what holds it.
 */
function census(path: string): Map<string, { bytes: number; count: number }> {
  const heap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const meta = heap.snapshot.meta;
  const width = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgesAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    meta.node_fields.indexOf(f),
  ) as [number, number, number, number];
  const [edgeTypeAt, edgeNameAt, toAt] = ['type', 'name_or_index', 'to_node'].map((f) =>
    meta.edge_fields.indexOf(f),
  ) as [number, number, number];
  const types = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const { nodes, edges, strings } = heap;
  const count = nodes.length / width;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0; n < count; n += 1) {
    firstEdge[n + 1] = firstEdge[n]! + nodes[n * width + edgesAt]! * edgeWidth;
  }
  const typeOf = (n: number) => types[nodes[n * width + typeAt]!]!;
  const nameOf = (n: number) => strings[nodes[n * width + nameAt]!]!;
  /** The node an edge named `name` of node `n` leads to. */
  const edgeTo = (n: number, name: string): number | undefined => {
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += edgeWidth) {
      const edgeType = edgeTypes[edges[e + edgeTypeAt]!];
      if (edgeType === 'element' || edgeType === 'hidden') continue;
      if (strings[edges[e + edgeNameAt]!] === name) return edges[e + toAt]! / width;
    }
    return undefined;
  };
  /** The URL of the script a closure's function comes from (its SharedFunctionInfo's script). */
  const scriptName = (closure: number): string | undefined => {
    const shared = edgeTo(closure, 'shared');
    if (shared === undefined) return undefined;
    let script = edgeTo(shared, 'script_or_debug_info') ?? edgeTo(shared, 'script');
    // A function with debug info reaches its script through it.
    if (script !== undefined && !/^(file|node):/.test(nameOf(script))) {
      script = edgeTo(script, 'script') ?? script;
    }
    return script === undefined ? undefined : nameOf(script);
  };
  const ownOwner = (n: number): string | undefined => {
    const type = typeOf(n);
    if (type === 'closure') {
      const script = scriptName(n) ?? '';
      for (const [pattern, owner] of SCRIPT_OWNERS) if (pattern.test(script)) return owner;
      return undefined;
    }
    if (type === 'object' || type === 'native') {
      const name = nameOf(n);
      for (const [pattern, owner] of CLASS_OWNERS) if (pattern.test(name)) return owner;
    }
    return undefined;
  };
  // The spanning tree from the root (node 0).
  const parent = new Int32Array(count).fill(-1);
  parent[0] = 0;
  const queue = new Uint32Array(count);
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const n = queue[head++]!;
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += edgeWidth) {
      if (edgeTypes[edges[e + edgeTypeAt]!] === 'weak') continue;
      const to = edges[e + toAt]! / width;
      if (parent[to] === -1) {
        parent[to] = n;
        queue[tail++] = to;
      }
    }
  }
  const owners = new Array<string | undefined>(count);
  const ownerOf = (n: number): string => {
    const path: number[] = [];
    let at = n;
    let found: string | undefined;
    for (let depth = 0; depth < 64; depth += 1) {
      if (owners[at] !== undefined) {
        found = owners[at];
        break;
      }
      found = ownOwner(at);
      path.push(at);
      if (found !== undefined || parent[at] === at || parent[at] === -1) break;
      at = parent[at]!;
    }
    const owner = found ?? 'v8/unattributed';
    for (const step of path) owners[step] = owner;
    return owner;
  };
  const totals = new Map<string, { bytes: number; count: number }>();
  for (let n = 0; n < count; n += 1) {
    const type = typeOf(n);
    const named = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden';
    const name = named ? nameOf(n) : '';
    const key = `${ownerOf(n)}|${type}:${name.length > 60 ? `${name.slice(0, 60)}…` : name}`;
    const entry = totals.get(key) ?? { bytes: 0, count: 0 };
    entry.bytes += nodes[n * width + sizeAt]!;
    entry.count += 1;
    totals.set(key, entry);
  }
  return totals;
}

function diff(before: string, after: string, streams: number) {
  const a = census(before);
  const b = census(after);
  const rows: Array<{ kind: string; owner: string; bytesPerStream: number; perStream: number }> =
    [];
  for (const [key, { bytes, count }] of b) {
    const was = a.get(key) ?? { bytes: 0, count: 0 };
    const bytesPerStream = (bytes - was.bytes) / streams;
    if (Math.abs(bytesPerStream) < 16) continue;
    rows.push({
      kind: key.slice(key.indexOf('|') + 1),
      owner: key.slice(0, key.indexOf('|')),
      bytesPerStream: Math.round(bytesPerStream),
      perStream: Math.round(((count - was.count) / streams) * 100) / 100,
    });
  }
  rows.sort((x, y) => y.bytesPerStream - x.bytesPerStream);
  const owners: Record<string, number> = {};
  for (const row of rows) owners[row.owner] = (owners[row.owner] ?? 0) + row.bytesPerStream;
  const total = rows.reduce((sum, row) => sum + row.bytesPerStream, 0);
  return {
    streams,
    bytesPerStream: total,
    byOwner: Object.fromEntries(Object.entries(owners).sort((x, y) => y[1] - x[1])),
    top: rows.slice(0, 60),
  };
}

function main(): void {
  const [before, after, count] = process.argv.slice(2);
  if (before && after) {
    console.log(JSON.stringify(diff(before, after, Number(count ?? 1000)), null, 2));
    return;
  }
  const streams = Number(process.env.LIVE_BENCH_HEAP_STREAMS ?? 1000);
  const kept = process.env.LIVE_BENCH_HEAP_SNAPSHOTS;
  const dir = kept ?? mkdtempSync(join(tmpdir(), 'live-heap-'));
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/live.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        LIVE_BENCH_STREAMS: String(streams),
        LIVE_BENCH_HEAP_MB: process.env.LIVE_BENCH_HEAP_MB ?? '448',
        LIVE_BENCH_HEAP_SNAPSHOTS: dir,
        LIVE_BENCH_WRITES: '0',
        LIVE_BENCH_BACKGROUND_RPS: '0',
        LIVE_BENCH_WEBHOOK_EVENTS: '0',
      },
    });
    if (run.status !== 0) throw new Error(`bench/live.ts exited with ${run.status}`);
    const result = diff(join(dir, 'idle.heapsnapshot'), join(dir, 'streams.heapsnapshot'), streams);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    if (kept === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

main();
