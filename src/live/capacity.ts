/**
 * How many live streams an instance can hold in its heap: the default
 * stream limit (LIVE_MAX_STREAMS unset; docs/LIVE.md, Capacity).
 *
 * A stream's heap, measured after a full GC (`npm run bench:live-heap`,
 * heap snapshots with 0 and 1,000 streams diffed), depends on its transport:
 *
 * - **SSE** (`sse`): ~82–88 KB, held by tRPC's Express adapter like every
 *   request (its Web Streams pipeline, the Fetch Request, the open HTTP
 *   request and response) and ~2 KB ours.
 * - **WebSocket** (`ws`): ~23 KB a subscription on a connection of its own
 *   (tRPC's WebSocket adapter, `ws`, the upgraded socket, ours 3 KB).
 *
 * STREAM_HEAP_BYTES budgets each with room to spare; every open stream takes
 * its transport's share of the heap's budget (the heap less
 * HEAP_RESERVED_BYTES, left for everything else the process holds and
 * allocates while serving requests: the app's own baseline, the pool,
 * in-flight requests, garbage between collections). `heap_size_limit` is
 * what `--max-old-space-size` sets (plus the young generation).
 */
export type StreamTransport = 'sse' | 'ws';

export const STREAM_HEAP_BYTES: Readonly<Record<StreamTransport, number>> = {
  sse: 96 * 1024,
  ws: 32 * 1024,
};
export const HEAP_RESERVED_BYTES = 96 * 1024 * 1024;

/** The bytes of heap the streams may take together (at least one SSE stream's). */
export function streamHeapBudget(heapSizeLimit: number): number {
  return Math.max(STREAM_HEAP_BYTES.sse, heapSizeLimit - HEAP_RESERVED_BYTES);
}

/** The most streams of `transport` a heap of `heapSizeLimit` bytes holds, the reserve kept free. */
export function streamCapacity(heapSizeLimit: number, transport: StreamTransport = 'sse'): number {
  return Math.floor(streamHeapBudget(heapSizeLimit) / STREAM_HEAP_BYTES[transport]);
}
