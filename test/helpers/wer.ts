/** Word error rate as the speech notes measure it: lower case, punctuation stripped, word-level edits. */
export function normalizeWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9' ]+/g, " ")
    .replace(/'/g, "")
    .split(/\s+/)
    .filter(Boolean);
}

/** Word-level Levenshtein distance: substitutions + deletions + insertions. */
export function wordEdits(reference: string, hypothesis: string): number {
  const ref = normalizeWords(reference);
  const hyp = normalizeWords(hypothesis);
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const current = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (ref[i - 1] === hyp[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return previous[hyp.length] ?? 0;
}

/** Corpus WER: total edits over total reference words. */
export function wer(pairs: readonly { reference: string; hypothesis: string }[]): number {
  const words = pairs.reduce((sum, p) => sum + normalizeWords(p.reference).length, 0);
  const edits = pairs.reduce((sum, p) => sum + wordEdits(p.reference, p.hypothesis), 0);
  return words === 0 ? 0 : edits / words;
}
