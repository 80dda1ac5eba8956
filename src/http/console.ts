import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import type { ConsoleConfig } from '../console/config.js';

/**
 * GET /admin: the operator's console (console/, built into dist/console by `npm run build`, which
 * `npm install` runs): static files only, under a Content-Security-Policy of its own — scripts and
 * styles from this origin, no inline script, no frames; it talks to /trpc on this origin and to the
 * identity provider's token endpoint. /admin/config.json tells it where to sign in.
 */
export function consoleCsp(config: ConsoleConfig): string {
  const connect = new Set(["'self'"]);
  for (const url of [config.tokenUrl]) {
    if (url && /^https?:\/\//.test(url)) connect.add(new URL(url).origin);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${[...connect].join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The package root: the first folder up from this file with a package.json (source or dist/). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above src/http/console');
    dir = parent;
  }
  return dir;
}

export const CONSOLE_DIR = join(packageRoot(), 'dist', 'console');

export function consoleRouter(config: ConsoleConfig, issuer: string): Router {
  const router = express.Router({ strict: true });
  const csp = consoleCsp(config);
  const built = existsSync(join(CONSOLE_DIR, 'index.html'));
  const settings = JSON.stringify({ ...config, issuer });
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  });
  router.get('/config.json', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.type('application/json').send(settings);
  });
  if (!built) {
    router.use((_req, res) => {
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built: run `npm run build` (npm install runs it).\n');
    });
    return router;
  }
  const index = readFileSync(join(CONSOLE_DIR, 'index.html'));
  router.get('/', (req, res) => {
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, '/admin/');
    res.setHeader('Cache-Control', 'no-store');
    res.type('html').send(index);
  });
  router.use(
    express.static(CONSOLE_DIR, {
      index: false,
      redirect: false,
      fallthrough: true,
      immutable: true,
      maxAge: '365d',
    }),
  );
  return router;
}
