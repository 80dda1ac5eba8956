import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Router } from 'express';

/**
 * The Content-Security-Policy of /docs, and only /docs: Swagger UI's own
 * script, stylesheet and the init script below come from this service, its
 * icons are data: URIs in the stylesheet, and it fetches /openapi.json and
 * sends "Try it out" requests to this origin. Nothing else — no CDN, no
 * inline script, no frames. Exported for the security-header tests.
 */
export const DOCS_CSP_DIRECTIVES: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
});

export const DOCS_CSP = Object.entries(DOCS_CSP_DIRECTIVES)
  .map(([directive, sources]) => `${directive} ${sources.join(' ')}`)
  .join('; ');

const SWAGGER_UI_DIR = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

/** The only files of swagger-ui-dist the page needs. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>User Profile Service — API reference</title>
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" />
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

// A file of its own, not an inline script, so the CSP needs no 'unsafe-inline'.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  validatorUrl: null,
  deepLinking: false,
});
`;

/**
 * GET /docs: Swagger UI for openapi.json, served entirely by this service
 * (swagger-ui-dist from npm). "Authorize" takes a bearer token; "Try it out"
 * calls the REST paths on this origin.
 */
export function docsRouter(): Router {
  const router = express.Router({ strict: false });
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  });
  router.get('/', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/init.js', (_req, res) => {
    res.type('text/javascript; charset=utf-8').send(INIT_SCRIPT);
  });
  for (const [file, contentType] of Object.entries(ASSETS)) {
    router.get(`/${file}`, (_req, res, next) => {
      res.type(contentType).sendFile(join(SWAGGER_UI_DIR, file), { maxAge: '1h' }, (err) => {
        if (err) next(err);
      });
    });
  }
  return router;
}
