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

/**
 * Why `value` (already cleaned) cannot be stored, or undefined when it can:
 * control characters, bidirectional controls and invisible characters are
 * refused anywhere in the text, except inside emoji sequences.
 */
export function textProblem(value: string): string | undefined {
  const control = CONTROL.exec(value);
  if (control) return `Control characters are not allowed (${codePointName(control[0])})`;
  const bidi = BIDI_CONTROL.exec(value);
  if (bidi) {
    return `Bidirectional control characters are not allowed (${codePointName(bidi[0])})`;
  }
  const invisible = INVISIBLE.exec(value.replace(EMOJI_SEQUENCE, ''));
  if (invisible) {
    return `Invisible characters are not allowed (${codePointName(invisible[0])})`;
  }
  return undefined;
}
