// What the Freestyle desktop app reads in svc's answers: the finished text as `cleaned`, which is
// empty when the dictation is not to be delivered (a plugin consumed or suppressed it).
import { desktopOrigin } from "./cors.ts";

/** The text to paste: the finished text when it is delivered, else "". */
export const cleanedOf = (result: { text: string; disposition: string }): string =>
  result.disposition === "deliver" ? result.text : "";

/**
 * `result` with `cleaned` beside its fields (POST /api/transcribe, POST /api/post-process). For the
 * desktop app itself (`origin` app://renderer) a dictation not to be delivered also answers an
 * empty `raw`: Freestyle 0.7.x pastes `cleaned || raw`, and would paste what a plugin consumed.
 */
export const withCleaned = <T extends { text: string; disposition: string; raw?: string }>(
  result: T,
  origin: string | null,
): T & { cleaned: string } => {
  const cleaned = cleanedOf(result);
  const silenced = origin === desktopOrigin && result.disposition !== "deliver" && result.raw !== undefined;
  return { ...result, ...(silenced ? { raw: "" } : {}), cleaned };
};
