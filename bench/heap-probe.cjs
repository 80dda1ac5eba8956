/**
 * Preloaded into the service process by `npm run bench:live`
 * (`node --expose-gc --require ./bench/heap-probe.cjs`): on the message
 * `'heap'` over the IPC channel the bench opened, collects garbage and
 * answers with the heap in use, so the bench can report the heap an open
 * stream costs; on `{ snapshot: path }` it writes a heap snapshot there
 * (LIVE_BENCH_HEAP_SNAPSHOTS) and answers when it is written. The service
 * itself has no such hook; nothing else loads this.
 */
'use strict';
const { getHeapStatistics, writeHeapSnapshot } = require('node:v8');

if (typeof process.send === 'function' && typeof globalThis.gc === 'function') {
  process.on('message', (message) => {
    if (typeof message === 'object' && message !== null && 'snapshot' in message) {
      globalThis.gc();
      process.send({ snapshot: writeHeapSnapshot(message.snapshot) });
      return;
    }
    if (message !== 'heap') return;
    globalThis.gc();
    globalThis.gc();
    const { heapUsed } = process.memoryUsage();
    process.send({ heapUsed, heapSizeLimit: getHeapStatistics().heap_size_limit });
  });
  // The channel must not keep the service up once it shuts down.
  process.channel?.unref();
}
