import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  ASYNCAPI_PATH,
  OPENAPI_PATH,
  OPENAPI_TYPES_PATH,
  renderAsyncApi,
  renderOpenApi,
  renderOpenApiTypes,
} from '../../scripts/openapi.js';

describe('committed openapi.json', () => {
  it('is exactly what the routers generate (run `npm run openapi` after changing a procedure)', async () => {
    const committed = await readFile(OPENAPI_PATH, 'utf8');
    expect(committed).toBe(renderOpenApi());
  });

  it('has REST client types generated from it (client/src/openapi-types.ts)', async () => {
    const committed = await readFile(OPENAPI_TYPES_PATH, 'utf8');
    expect(committed).toBe(await renderOpenApiTypes(renderOpenApi()));
  });

  it('has asyncapi.json beside it, generated from the same schemas', async () => {
    const committed = await readFile(ASYNCAPI_PATH, 'utf8');
    expect(committed).toBe(renderAsyncApi());
  });
});
