import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { appRouter, LIVE_STREAMS, WEBHOOK_EVENTS } from '../routers/index.js';
import { buildAsyncApiDocument } from '../src/asyncapi.js';
import { buildOpenApiDocument } from '../src/openapi.js';

/**
 * `npm run openapi` writes openapi.json from the routers (with the webhooks
 * of routers/live-schemas.ts), from it the REST client types in
 * client/src/openapi-types.ts (openapi-typescript, shipped by the client package), and asyncapi.json (the
 * live streams); `npm run openapi:check` fails when a committed file differs
 * from what the routers generate (CI runs it, and a test does too).
 */
export const OPENAPI_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));
export const ASYNCAPI_PATH = fileURLToPath(new URL('../asyncapi.json', import.meta.url));
export const OPENAPI_TYPES_PATH = fileURLToPath(
  new URL('../client/src/openapi-types.ts', import.meta.url),
);

export function renderOpenApi(): string {
  const document = buildOpenApiDocument(appRouter, { webhooks: WEBHOOK_EVENTS });
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** asyncapi.json: the live streams (AsyncAPI 3), from the same zod schemas. */
export function renderAsyncApi(): string {
  return `${JSON.stringify(buildAsyncApiDocument(LIVE_STREAMS), null, 2)}\n`;
}

export async function renderOpenApiTypes(openApiJson: string): Promise<string> {
  const ast = await openapiTS(openApiJson);
  return (
    '// Generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit.\n\n' +
    astToString(ast)
  );
}

async function main(): Promise<void> {
  const document = renderOpenApi();
  const files: [string, string][] = [
    [OPENAPI_PATH, document],
    [OPENAPI_TYPES_PATH, await renderOpenApiTypes(document)],
    [ASYNCAPI_PATH, renderAsyncApi()],
  ];
  if (process.argv.includes('--check')) {
    let stale = false;
    for (const [path, generated] of files) {
      const committed = await readFile(path, 'utf8').catch(() => '');
      if (committed !== generated) {
        process.stderr.write(`${path} is out of date: run \`npm run openapi\` and commit it.\n`);
        stale = true;
      }
    }
    if (stale) process.exit(1);
    process.stdout.write('openapi.json, its client types and asyncapi.json are up to date\n');
    return;
  }
  for (const [path, generated] of files) {
    await writeFile(path, generated);
    process.stdout.write(`wrote ${path}\n`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
