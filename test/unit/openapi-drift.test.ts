import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OPENAPI_PATH, renderOpenApi } from '../../scripts/openapi.js';

describe('committed openapi.json', () => {
  it('is exactly what the routers generate (run `npm run openapi` after changing a procedure)', async () => {
    const committed = await readFile(OPENAPI_PATH, 'utf8');
    expect(committed).toBe(renderOpenApi());
  });
});
