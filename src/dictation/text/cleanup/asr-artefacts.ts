/**
 * Marks speech engines (Whisper above all) write into transcripts that the speaker never said:
 * `[BLANK_AUDIO]`, `[ Music ]`, `(upbeat music)`, `*laughs*`, `♪`, `>>` speaker turns. The one list:
 * every engine's output passes through it (engines/hallucinations.ts), and cleanup applies it to
 * text sent to /api/post-process.
 */

/** Square-bracket tags are always engine annotations when they hold only words (no digits: `[1]` stays). */
const BRACKET_TAG = /\[\s*[\p{L}_' -]{1,40}\s*\]/gu;

/** Sound events Whisper puts in parentheses or asterisks; other parenthesised words are kept. */
const SOUND_WORDS = [
  "music",
  "applause",
  "laughter",
  "laughs",
  "laughing",
  "chuckles",
  "chuckling",
  "silence",
  "inaudible",
  "indistinct",
  "unintelligible",
  "noise",
  "static",
  "coughs",
  "coughing",
  "sighs",
  "sighing",
  "breathing",
  "clapping",
  "cheering",
  "beep",
  "beeping",
  "crosstalk",
  "blank_audio",
].join("|");

const SOUND_TAG = new RegExp(
  String.raw`[(*]\s*(?:[\p{L}'-]+\s+){0,3}?(?:${SOUND_WORDS})(?:\s+[\p{L}'-]+){0,2}\s*[)*]`,
  "giu",
);
const MUSIC_NOTES = /[♪♫♬🎵🎶]+/gu;
const SPEAKER_TURN = /(^|\s)>>(?=\s|$)/gu;

/** Line ends become `\n`; every other space-like character (tab, no-break space) a plain space. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\r\n?|[\u2028\u2029]/gu, "\n").replace(/[^\S\n]/gu, " ");
}

/** Removes engine non-speech marks, leaving spaces where they were. */
export function stripAsrArtefacts(text: string): string {
  return text
    .replace(BRACKET_TAG, " ")
    .replace(SOUND_TAG, " ")
    .replace(MUSIC_NOTES, " ")
    .replace(SPEAKER_TURN, "$1");
}
