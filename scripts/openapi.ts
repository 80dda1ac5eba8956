import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument } from '../src/openapi.js';

/**
 * `npm run openapi` writes openapi.json from the routers; `npm run
 * openapi:check` fails when the committed file differs from what the routers
 * generate (CI runs it, and a test does too).
 */
export const OPENAPI_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));

export function renderOpenApi(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

async function main(): Promise<void> {
  const generated = renderOpenApi();
  if (process.argv.includes('--check')) {
    const committed = await readFile(OPENAPI_PATH, 'utf8').catch(() => '');
    if (committed !== generated) {
      process.stderr.write('openapi.json is out of date: run `npm run openapi` and commit it.\n');
      process.exit(1);
    }
    process.stdout.write('openapi.json is up to date\n');
    return;
  }
  await writeFile(OPENAPI_PATH, generated);
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
