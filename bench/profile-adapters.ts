/**
 * What each face's adapter costs by itself: a bare Express app serving one
 * zod-validated mutation both ways, as the service does (REST through
 * trpc-to-openapi behind express.json, /trpc through tRPC's Express adapter
 * behind express.text), with no database, auth or logging. For each face it
 * sends BENCH_PROFILE_REQUESTS calls (10 at a time, after a warm-up) and
 * prints the bytes allocated per call (a sampling heap profile, every
 * allocation counted whether collected or kept: independent of the machine's
 * load) with the functions that allocate most, and the process's CPU per call
 * (/proc; moves with the load). docs/PERFORMANCE.md, "The tRPC face's extra
 * cost".
 *
 *   npx tsx bench/profile-adapters.ts
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { initTRPC } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import express from 'express';
import { createOpenApiExpressMiddleware, type OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { readCpuMs } from './proc.js';

const requests = Number(process.env.BENCH_PROFILE_REQUESTS ?? 3000);
const top = Number(process.env.BENCH_PROFILE_TOP ?? 12);
const FACES = {
  rest: { method: 'PATCH', path: '/api/user' },
  trpc: { method: 'POST', path: '/trpc/updateUser' },
} as const;

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** The child: the bare app, and a sampling heap profiler it starts and stops on request. */
async function serve(): Promise<void> {
  const t = initTRPC.meta<OpenApiMeta>().create();
  const user = { id: '0190', handle: 'fan_1', name: 'A Fan', location: 'Porto', points: 120 };
  const router = t.router({
    updateUser: t.procedure
      .meta({ openapi: { method: 'PATCH', path: '/api/user' } })
      .input(z.object({ name: z.string().optional(), location: z.string().optional() }))
      .output(z.object({ id: z.string() }).passthrough())
      .mutation(({ input }) => ({ ...user, ...input })),
  });
  const app = express();
  app.use('/trpc', express.text({ type: () => true }), createExpressMiddleware({ router }));
  app.use(express.json(), createOpenApiExpressMiddleware({ router }));
  const server = app.listen(0, '127.0.0.1', () =>
    process.send!({ port: (server.address() as AddressInfo).port }),
  );
  const session = new Session();
  session.connect();
  process.on('message', (message: string) => {
    void (async () => {
      if (message === 'start') {
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
        process.send!({ started: true });
        return;
      }
      const { profile } = (await session.post('HeapProfiler.stopSampling')) as {
        profile: { head: HeapNode };
      };
      const byFunction = new Map<string, number>();
      let total = 0;
      const walk = (node: HeapNode) => {
        if (node.selfSize > 0) {
          total += node.selfSize;
          const { functionName, url, lineNumber } = node.callFrame;
          const where = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '')}:${lineNumber + 1}`;
          byFunction.set(where, (byFunction.get(where) ?? 0) + node.selfSize);
        }
        node.children.forEach(walk);
      };
      walk(profile.head);
      process.send!({ total, byFunction: [...byFunction].sort((a, b) => b[1] - a[1]) });
    })();
  });
}

function ask<T>(child: ChildProcess, message?: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    if (message) child.send(message);
  });
}

async function calls(port: number, face: keyof typeof FACES, n: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  const body = JSON.stringify({ name: 'Somebody', location: 'Somewhere' });
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          port,
          host: '127.0.0.1',
          ...FACES[face],
          agent,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${'x'.repeat(300)}`,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            (res.statusCode ?? 500) < 300
              ? resolve()
              : reject(new Error(`${face}: ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let sent = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (sent++ < n) await one();
    }),
  );
  agent.destroy();
}

async function main(): Promise<void> {
  for (const face of Object.keys(FACES) as (keyof typeof FACES)[]) {
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, BENCH_ADAPTER_ROLE: 'server' },
      execArgv: ['--import', 'tsx'],
    });
    try {
      const { port } = await ask<{ port: number }>(child);
      await calls(port, face, 2000);
      const before = readCpuMs(child.pid!);
      await calls(port, face, requests);
      const cpuUs = ((readCpuMs(child.pid!) - before) * 1000) / requests;
      await ask(child, 'start');
      await calls(port, face, requests);
      const heap = await ask<{ total: number; byFunction: [string, number][] }>(child, 'stop');
      process.stdout.write(
        `${face}: ${(heap.total / requests / 1024).toFixed(1)} KiB allocated per call, ` +
          `${cpuUs.toFixed(0)} µs CPU per call\n`,
      );
      for (const [where, bytes] of heap.byFunction.slice(0, top)) {
        process.stdout.write(`  ${(bytes / requests).toFixed(0).padStart(6)} B ${where}\n`);
      }
    } finally {
      child.kill();
    }
  }
}

if (process.env.BENCH_ADAPTER_ROLE === 'server') void serve();
else
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
