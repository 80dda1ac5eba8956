import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '../../src/openapi.js';

/** docs/VERSIONING.md: one version number for the package and the API it serves. */
async function json(path: string): Promise<{ version?: string; info?: { version?: string } }> {
  return JSON.parse(await readFile(new URL(`../../${path}`, import.meta.url), 'utf8')) as {
    version?: string;
    info?: { version?: string };
  };
}

describe('versions in step (docs/VERSIONING.md)', () => {
  it('package.json, API_VERSION, the committed openapi.json and the client package name one version', async () => {
    const pkg = await json('package.json');
    const openapi = await json('openapi.json');
    const client = await json('client/package.json');
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect({ api: API_VERSION, openapi: openapi.info?.version, client: client.version }).toEqual({
      api: pkg.version,
      openapi: pkg.version,
      client: pkg.version,
    });
  });

  it('the CHANGELOG has an entry for that version', async () => {
    const { version } = await json('package.json');
    const changelog = await readFile(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
    expect(changelog).toContain(`## ${version} — `);
  });
});
