import { z } from 'zod';

/**
 * What every free-text value goes through before a field's own rule (docs/CONTRACT.md,
 * Field rules): surrounding whitespace is trimmed first, then nothing inside may be a
 * character a reader cannot see or that reorders what they see.
 */

/**
 * NFC, then surrounding whitespace trimmed: spaces, tabs, newlines, no-break
 * and other Unicode spaces, a byte-order mark (String.prototype.trim's set).
 */
export function cleanText(value: string): string {
  return value.normalize('NFC').trim();
}

// C0, DEL, C1 controls and the Unicode line/paragraph separators.
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/u;
// U+061C, U+200E/F, U+202A–202E, U+2066–2069: they reorder how text displays.
const BIDI_CONTROL = /\p{Bidi_Control}/u;
// Zero-width spaces and joiners, soft hyphens, fillers, tags, variation selectors,
// interlinear annotation marks, …: nothing to see, or only formatting.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/u;
/**
 * Emoji, which legitimately carry invisible parts: ZWJ sequences (👨‍👩‍👧),
 * variation selectors (❤️), tag sequences (🏴󠁧󠁢󠁥󠁮󠁧󠁿). Every RGI emoji, plus any
 * pictographs joined by ZWJ (sequences newer than this runtime's Unicode data).
 * Built with `new RegExp` because the `v` flag is newer than the compile target.
 */
const EMOJI_SEQUENCE = new RegExp(
  String.raw`\p{RGI_Emoji}|\p{Extended_Pictographic}[\uFE0E\uFE0F]?\p{Emoji_Modifier}?(?:\u200D\p{Extended_Pictographic}[\uFE0E\uFE0F]?\p{Emoji_Modifier}?)*`,
  'gv',
);

function codePointName(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Which kind of character `value` may not hold, and the first one found (`U+202E`). */
export type TextFault = { kind: 'control' | 'bidi' | 'invisible'; codePoint: string };

/**
 * The first character of `value` that no stored text may hold: control
 * characters, bidirectional controls and invisible characters anywhere in the
 * text, except inside emoji sequences. Undefined when there is none.
 */
export function textFault(value: string): TextFault | undefined {
  const control = CONTROL.exec(value);
  if (control) return { kind: 'control', codePoint: codePointName(control[0]) };
  const bidi = BIDI_CONTROL.exec(value);
  if (bidi) return { kind: 'bidi', codePoint: codePointName(bidi[0]) };
  const invisible = INVISIBLE.exec(value.replace(EMOJI_SEQUENCE, ''));
  if (invisible) return { kind: 'invisible', codePoint: codePointName(invisible[0]) };
  return undefined;
}

const FAULT_MESSAGES: Record<TextFault['kind'], string> = {
  control: 'Control characters are not allowed',
  bidi: 'Bidirectional control characters are not allowed',
  invisible: 'Invisible characters are not allowed',
};

/** Why `value` (already cleaned) cannot be stored, or undefined when it can (see textFault). */
export function textProblem(value: string): string | undefined {
  const fault = textFault(value);
  return fault && `${FAULT_MESSAGES[fault.kind]} (${fault.codePoint})`;
}

/** Length in Unicode code points, so an emoji counts as one character. */
export function codePoints(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/**
 * The one schema of free text, for every text a caller sends (profile fields,
 * definition titles and descriptions, reasons, webhook descriptions):
 * well-formed Unicode (a lone surrogate cannot be stored as sent), then NFC
 * and trimmed, then no control, bidirectional-control or invisible character
 * inside (NUL included: PostgreSQL cannot store it). Checks in place
 * (`overwrite`), so it stays a string schema for the document.
 */
export function cleanedText(typeMessage = 'Must be a string') {
  return z
    .string({ error: typeMessage })
    .refine((value) => value.isWellFormed(), {
      message: 'Must be valid Unicode text (no lone surrogates)',
      abort: true,
    })
    .overwrite(cleanText)
    .superRefine((value, ctx) => {
      const problem = textProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

/** A length rule in code points: `Must be 1–80 characters`, `Must be at most 500 characters`. */
export function lengthRule(min: number, max: number) {
  return z.string().check(lengthCheck(min, max));
}

function lengthCheck(min: number, max: number) {
  return z.refine<string>(
    (value) => codePoints(value) >= min && codePoints(value) <= max,
    min > 0 ? `Must be ${min}–${max} characters` : `Must be at most ${max} characters`,
  );
}

/**
 * Free text of `min`–`max` code points after cleaning (cleanedText,
 * lengthRule); the document gives the limits as JSON Schema lengths, which
 * count code points too.
 */
export function freeText(min: number, max: number) {
  return cleanedText()
    .check(lengthCheck(min, max))
    .meta({ ...(min > 0 && { minLength: min }), maxLength: max });
}
