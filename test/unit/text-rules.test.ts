import { describe, expect, it } from 'vitest';
import { teamKey } from '../../db/team-key.js';
import { MAX_SUBJECT_LENGTH, subjectProblem } from '../../src/auth/subject.js';
import { profileFieldSchemas, teamFilterSchema } from '../../src/domain/profile.js';
import { cleanText, textProblem } from '../../src/domain/text.js';

const parse = (field: keyof typeof profileFieldSchemas, value: unknown) =>
  profileFieldSchemas[field].safeParse(value);
const messages = (field: keyof typeof profileFieldSchemas, value: unknown) => {
  const result = parse(field, value);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe('text rules: trimming first', () => {
  it.each([
    ['\tChess\n', 'Chess'],
    ['\r\n Chess \u00a0', 'Chess'],
    ['\ufeffChess\u3000', 'Chess'],
  ])('trims surrounding whitespace of %j before any rule', (raw, stored) => {
    expect(cleanText(raw)).toBe(stored);
    expect(parse('favoriteSport', raw)).toEqual({ success: true, data: stored });
  });

  it.each([' \t ', '\n', '\r\n\t\u00a0'])('clears a field that is only whitespace (%j)', (raw) => {
    expect(parse('location', raw)).toEqual({ success: true, data: null });
  });

  it('refuses control characters inside the text', () => {
    for (const inside of ['Che\tss', 'Che\nss', 'a\u0000b', 'a\u007fb', 'a\u0085b', 'a\u2028b']) {
      expect(messages('name', inside)).toEqual([expect.stringMatching(/^Control characters/)]);
    }
  });
});

describe('text rules: what a reader cannot see', () => {
  it.each([
    ['right-to-left override', 'evil\u202Egnp.exe', 'U+202E'],
    ['left-to-right mark', 'a\u200Eb', 'U+200E'],
    ['isolate', 'a\u2066b\u2069', 'U+2066'],
    ['Arabic letter mark', 'a\u061Cb', 'U+061C'],
  ])('refuses a bidi control (%s)', (_, value, name) => {
    expect(textProblem(value)).toBe(`Bidirectional control characters are not allowed (${name})`);
  });

  it.each([
    ['zero-width space', 'Arsenal\u200B', 'U+200B'],
    ['zero-width joiner between letters', 'Ars\u200Denal', 'U+200D'],
    ['zero-width non-joiner', 'Ars\u200Cenal', 'U+200C'],
    ['soft hyphen', 'Arse\u00ADnal', 'U+00AD'],
    ['word joiner', 'a\u2060b', 'U+2060'],
    ['byte-order mark inside', 'a\uFEFFb', 'U+FEFF'],
    ['Hangul filler', '\u3164', 'U+3164'],
    ['tag character outside a flag', 'a\u{E0041}', 'U+E0041'],
    ['variation selector after a letter', 'a\uFE0F', 'U+FE0F'],
    ['interlinear annotation', 'a\uFFF9b', 'U+FFF9'],
  ])('refuses an invisible character (%s)', (_, value, name) => {
    expect(textProblem(value)).toBe(`Invisible characters are not allowed (${name})`);
    expect(messages('name', value)).toEqual([`Invisible characters are not allowed (${name})`]);
  });

  it.each([
    ['family (ZWJ sequence)', '👨‍👩‍👧 Fans'],
    ['rainbow flag', '🏳️‍🌈'],
    ['England flag (tag sequence)', '🏴󠁧󠁢󠁥󠁮󠁧󠁿 Three Lions'],
    ['heart with presentation selector', 'Love ❤️'],
    ['skin tone and ZWJ', '🏃🏽‍♀️ runner'],
    ['keycap', '1️⃣ fan'],
    ['plain letters, accents, CJK, Arabic', 'José 山田 محمد'],
  ])('keeps emoji sequences and ordinary text (%s)', (_, value) => {
    expect(textProblem(value)).toBeUndefined();
    expect(parse('name', value)).toEqual({ success: true, data: value.normalize('NFC') });
  });

  it('gives the board filter the same rules', () => {
    expect(teamFilterSchema.safeParse('\tArsenal\n').data).toBe('Arsenal');
    expect(teamFilterSchema.safeParse('Arsenal\u200B').success).toBe(false);
    expect(teamFilterSchema.safeParse(' \t ').success).toBe(false);
  });
});

describe('teamKey', () => {
  it.each([
    'Arsenal',
    'ARSENAL',
    ' arsenal ',
    'Arsenal\u200B',
    'Arse\u00ADnal',
    'Ａｒｓｅｎａｌ',
    '\u2060Arsenal',
  ])('folds %j to "arsenal"', (name) => {
    expect(teamKey(name)).toBe('arsenal');
  });

  it('folds case fully and consistently (ß, final sigma, composed forms)', () => {
    expect(teamKey('Fortuna Düsseldorf')).toBe(teamKey('FORTUNA DU\u0308SSELDORF'));
    expect(teamKey('Straße FC')).toBe(teamKey('STRASSE FC'));
    expect(teamKey('ΟΛΥΜΠΙΑΚΟΣ')).toBe(teamKey('Ολυμπιακος'));
  });

  it('keeps different teams apart', () => {
    expect(teamKey('Inter')).not.toBe(teamKey('Inter Miami'));
    expect(teamKey('Lazio')).not.toBe(teamKey('Roma'));
  });
});

describe('profileUrl', () => {
  it.each([
    ['https:evil.com', 'https://evil.com/'],
    ['https:\\\\evil.com', 'https://evil.com/'],
    ['https://evil.com\\@good.com', 'https://evil.com/@good.com'],
    ['HTTPS://Example.COM:443/a b?x=1#top', 'https://example.com/a%20b?x=1#top'],
    ['https://bücher.example/ä', 'https://xn--bcher-kva.example/%C3%A4'],
    ['https://8.8.8.8/', 'https://8.8.8.8/'],
    ['https://[2001:4860:4860::8888]/', 'https://[2001:4860:4860::8888]/'],
  ])('stores %j in its canonical WHATWG form', (raw, canonical) => {
    expect(parse('profileUrl', raw)).toEqual({ success: true, data: canonical });
  });

  it.each([
    'https://localhost/',
    'https://LOCALHOST./x',
    'https://app.localhost/',
    'https://127.0.0.1/',
    'https://127.1/',
    'https://2130706433/',
    'https://0x7f.0.0.1/',
    'https://0.0.0.0/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://[fd12:3456::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::a00:1]/',
    'https://[2002:7f00:1::]/',
  ])('refuses %s (localhost, or an IP literal that is not public)', (raw) => {
    expect(messages('profileUrl', raw)).toEqual([
      expect.stringMatching(/^Must point to a public host/),
    ]);
  });

  it('keeps the other URL rules: https only, no credentials, at most 2048 characters stored', () => {
    expect(messages('profileUrl', 'http://example.com/')).toHaveLength(1);
    expect(messages('profileUrl', 'https://user:pw@example.com/')).toHaveLength(1);
    // Under the limit as sent, over it once every space is percent-encoded.
    expect(messages('profileUrl', `https://example.com/${' x'.repeat(1000)}`)).toEqual([
      'Must be at most 2048 characters',
    ]);
  });
});

describe('subjectProblem', () => {
  it.each([
    ['missing', undefined, /no subject/],
    ['empty', '', /no subject/],
    ['a number', 42, /no subject/],
    ['a lone high surrogate', 'x\uD800', /not valid Unicode/],
    ['a lone low surrogate', 'x\uDFFF', /not valid Unicode/],
    ['NUL', 'a\u0000b', /control characters/],
    ['a newline', 'a\nb', /control characters/],
    ['256 characters', 'x'.repeat(MAX_SUBJECT_LENGTH + 1), /longer than 255/],
    ['2.7 KB of random text', 'é'.repeat(1400), /longer than 255/],
  ])('refuses a sub that is %s', (_, sub, message) => {
    expect(subjectProblem(sub)).toMatch(message);
  });

  it.each([
    ['an ASCII id', 'auth0|5f7c8ec7c33c6c004bbafe82'],
    ['U+FFFD itself', 'x\uFFFD'],
    ['255 emoji', '😀'.repeat(MAX_SUBJECT_LENGTH)],
  ])('accepts %s', (_, sub) => {
    expect(subjectProblem(sub)).toBeUndefined();
  });
});
