import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../helpers/routes.js';

/**
 * Every REST operation of the router is opted into the shared suites
 * (test/helpers/operation-suites.ts) by some operation folder's suites.test.ts: named there,
 * or, for the admin folder, by its service scope. A new operation fails here until a folder
 * opts it in.
 */
const ROOT = new URL('./', import.meta.url);
const suites = readdirSync(ROOT, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((entry) => {
    try {
      return [readFileSync(new URL(`${entry.name}/suites.test.ts`, ROOT), 'utf8')];
    } catch {
      return [];
    }
  });

function optedIn(name: string, serviceScope: string | undefined): boolean {
  return suites.some(
    (text) =>
      text.includes(`'${name}'`) ||
      (serviceScope !== undefined && text.includes(`serviceScope === '${serviceScope}'`)),
  );
}

describe('the shared operation suites', () => {
  it('cover every REST operation the router declares', () => {
    expect(suites.length).toBeGreaterThanOrEqual(7);
    const missing = ROUTES.filter((route) => !optedIn(route.name, route.serviceScope)).map(
      (route) => route.name,
    );
    expect(missing).toEqual([]);
  });
});
