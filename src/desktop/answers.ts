// What the Freestyle desktop app reads in svc's answers: the finished text as `cleaned`, which is
// empty when the dictation is not to be delivered (a plugin consumed or suppressed it).

/** The text to paste: the finished text when it is delivered, else "". */
export const cleanedOf = (result: { text: string; disposition: string }): string =>
  result.disposition === "deliver" ? result.text : "";

/** `result` with `cleaned` beside its fields (POST /api/transcribe, POST /api/post-process). */
export const withCleaned = <T extends { text: string; disposition: string }>(
  result: T,
): T & { cleaned: string } => ({
  ...result,
  cleaned: cleanedOf(result),
});
