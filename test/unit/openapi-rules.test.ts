import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appRouter } from '../../routers/index.js';
import { OPENAPI_PATH } from '../../scripts/openapi.js';
import {
  PROFILE_FIELD_TABLE,
  PROFILE_FIELDS as FIELDS,
  type ProfileField,
} from '../../db/profile-fields.js';
import { profileFieldSchemas, teamFilterSchema } from '../../src/domain/profile.js';
import { buildOpenApiDocument, LOCAL_SERVER_URL } from '../../src/openapi.js';

type Json = Record<string, any>;
const document = JSON.parse(await readFile(OPENAPI_PATH, 'utf8')) as Json;
const schemas = document.components.schemas as Json;

const ajv = new Ajv2020({ strict: false });
formatsPlugin.default(ajv);
/** What a validating proxy checks a request field against, and a response field. */
const requestRule = (field: ProfileField) => ajv.compile(schemas.UpdateUserInput.properties[field]);
const storedRule = (field: ProfileField) => ajv.compile(schemas.User.properties[field]);

// Whitespace String.prototype.trim removes: what the service trims before every rule.
const space = fc.constantFrom('', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\ufeff');
const padded = (value: fc.Arbitrary<string>) =>
  fc.tuple(space, value, space).map(([before, text, after]) => `${before}${text}${after}`);

const text = (max: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: max + 3 }),
    fc.string({ unit: 'binary', maxLength: max + 3 }),
    fc.string({ unit: 'grapheme-ascii', minLength: max - 2, maxLength: max + 2 }),
  );
const candidates: Record<ProfileField, fc.Arbitrary<string>> = {
  name: padded(text(PROFILE_FIELD_TABLE.name.max)),
  handle: padded(
    fc.oneof(
      fc
        .tuple(fc.constantFrom('', '@'), fc.stringMatching(/^[A-Za-z0-9_]{1,32}$/))
        .map(([at, handle]) => `${at}${handle}`),
      fc.string({ maxLength: 34 }),
    ),
  ),
  location: padded(text(PROFILE_FIELD_TABLE.location.max)),
  favoriteSport: padded(text(PROFILE_FIELD_TABLE.favoriteSport.max)),
  favoriteTeam: padded(text(PROFILE_FIELD_TABLE.favoriteTeam.max)),
  favoritePlayer: padded(text(PROFILE_FIELD_TABLE.favoritePlayer.max)),
  rivalTeam: padded(text(PROFILE_FIELD_TABLE.rivalTeam.max)),
  profileUrl: padded(
    fc.oneof(
      fc
        .tuple(fc.constantFrom('https', 'HTTPS', 'Https', 'http', 'ftp'), fc.webUrl())
        .map(([scheme, url]) => url.replace(/^https?/, scheme)),
      fc.string({ maxLength: 40 }),
    ),
  ),
};

describe('field rules in openapi.json', () => {
  it.each(FIELDS)(
    '%s: the request schema accepts every value the service accepts; the stored value meets the response schema',
    (field) => {
      const request = requestRule(field);
      const stored = storedRule(field);
      let accepted = 0;
      fc.assert(
        fc.property(candidates[field], (value) => {
          const parsed = profileFieldSchemas[field].safeParse(value);
          if (!parsed.success) return;
          accepted += 1;
          expect(request(value), JSON.stringify(value)).toBe(true);
          expect(stored(parsed.data), JSON.stringify(parsed.data)).toBe(true);
        }),
        { numRuns: 400 },
      );
      // The property above must have had something to check.
      expect(accepted).toBeGreaterThan(20);
    },
  );

  it('the team parameter accepts every team filter the service accepts', () => {
    const team = (document.paths as Json)['/api/leaderboard'].get.parameters.find(
      (parameter: Json) => parameter.name === 'team',
    );
    const rule = ajv.compile(team.schema);
    let accepted = 0;
    fc.assert(
      fc.property(padded(text(PROFILE_FIELD_TABLE.favoriteTeam.max)), (value) => {
        if (!teamFilterSchema.safeParse(value).success) return;
        accepted += 1;
        expect(rule(value), JSON.stringify(value)).toBe(true);
      }),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(20);
    expect(rule('   ')).toBe(false);
    expect(rule('t'.repeat(101))).toBe(false);
  });

  it('refuses in the document what the rules refuse, where JSON Schema can say it', () => {
    const refused: [ProfileField, string][] = [
      ['name', 'x'.repeat(81)],
      ['name', `😀`.repeat(81)],
      ['handle', 'two words'],
      ['handle', 'ab'],
      ['handle', 'a'.repeat(31)],
      ['handle', '@@alice'],
      ['favoriteSport', 's'.repeat(51)],
      ['profileUrl', 'string'],
      ['profileUrl', 'http://alice.example.com/'],
      ['profileUrl', 'javascript:alert(1)'],
    ];
    for (const [field, value] of refused) {
      expect(profileFieldSchemas[field].safeParse(value).success, `${field} ${value}`).toBe(false);
      expect(requestRule(field)(value), `${field} ${value}`).toBe(false);
    }
    // Limits count code points, as the rules do: 80 emoji are 160 UTF-16 units.
    expect(requestRule('name')('😀'.repeat(80))).toBe(true);
    expect(storedRule('name')('😀'.repeat(80))).toBe(true);
    expect(storedRule('handle')('@alice')).toBe(false);
    expect(storedRule('profileUrl')('http://alice.example.com/')).toBe(false);
  });

  it('documents every query parameter at parameter level', () => {
    for (const item of Object.values(document.paths as Json)) {
      for (const operation of Object.values(item as Json) as Json[]) {
        for (const parameter of operation.parameters ?? []) {
          expect(parameter.description, parameter.name).toBeTruthy();
          expect(parameter.schema.description).toBeUndefined();
        }
      }
    }
  });
});

describe('servers and contact', () => {
  it('names the local server in the committed document, and a public URL when given one', () => {
    expect(document.servers).toEqual([
      { url: LOCAL_SERVER_URL, description: 'Local development (npm start)' },
    ]);
    expect(document.info.contact).toEqual({ name: 'User Profile Service maintainers' });
    const deployed = buildOpenApiDocument(appRouter, { serverUrl: 'https://api.fans.example' });
    expect(deployed.servers).toEqual([
      { url: 'https://api.fans.example', description: 'This deployment (PUBLIC_URL)' },
    ]);
  });
});

describe('examples', () => {
  it('gives every request body and every success response a named example', () => {
    let bodies = 0;
    for (const [path, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json) as [string, Json][]) {
        const where = `${method.toUpperCase()} ${path}`;
        const body = operation.requestBody?.content['application/json'];
        if (body) {
          bodies += 1;
          expect(
            Object.keys(body.examples ?? {}),
            `${where}: add a request example to its area in src/openapi-examples-*.ts`,
          ).not.toHaveLength(0);
        }
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) >= 300) continue;
          const examples = response.content['application/json'].examples ?? {};
          expect(
            Object.keys(examples),
            `${where} ${status}: add a response example to its area in src/openapi-examples-*.ts`,
          ).not.toHaveLength(0);
          for (const example of Object.values(examples) as Json[]) {
            expect(example.summary).toBeTruthy();
          }
        }
      }
    }
    expect(bodies).toBeGreaterThanOrEqual(2);
  });
});
