/**
 * How many live streams an instance can hold in its heap: the default of
 * LIVE_MAX_STREAMS (docs/LIVE.md, Capacity).
 *
 * An open stream is served by tRPC's Express adapter like every request, and
 * its heap, measured after a full GC (`npm run bench:live` reports it), is
 * about 82–85 KB: ~75 KB is the adapter's own (a bare Express app with only
 * the adapter and an idle subscription measures that), the rest the
 * request's Express objects, headers and our stream (its inbox and
 * iterators, ~1 KB). STREAM_HEAP_BYTES budgets it with room to spare.
 * HEAP_RESERVED_BYTES is left for everything else the process holds and
 * allocates while serving requests (the app's own baseline, the pool,
 * in-flight requests, garbage between collections). `heap_size_limit` is
 * what `--max-old-space-size` sets (plus the young generation).
 */
export const STREAM_HEAP_BYTES = 96 * 1024;
export const HEAP_RESERVED_BYTES = 96 * 1024 * 1024;

/** The most streams a heap of `heapSizeLimit` bytes holds, with the reserve kept free. */
export function streamCapacity(heapSizeLimit: number): number {
  return Math.max(1, Math.floor((heapSizeLimit - HEAP_RESERVED_BYTES) / STREAM_HEAP_BYTES));
}
