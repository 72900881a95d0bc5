// A language's name in the reader's own language ("de" → "German" in an English browser, "Deutsch"
// in a German one), from the browser's Intl data; the code itself where it has no name.
let names: Intl.DisplayNames | undefined;

export function languageName(code: string): string {
  names ??= new Intl.DisplayNames(navigator.languages, { type: "language", fallback: "code" });
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
