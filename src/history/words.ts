const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/** Counts words the way a reader would, including scripts written without spaces. */
export function countWords(text: string): number {
  let count = 0;
  for (const segment of segmenter.segment(text)) if (segment.isWordLike) count++;
  return count;
}
