/** A parsed `Content-Type`: lower-cased `type/subtype` and its parameters. */
export interface MediaType {
  essence: string;
  params: Record<string, string>;
}

/** Lenient RFC 9110 parsing: unknown or malformed parameters are dropped, not fatal. */
export function parseMediaType(header: string | undefined): MediaType | undefined {
  if (!header) return undefined;
  const [essence = "", ...rest] = header.split(";");
  const params: Record<string, string> = {};
  for (const part of rest) {
    const eq = part.indexOf("=");
    if (eq < 1) continue;
    const key = part.slice(0, eq).trim().toLowerCase();
    params[key] = part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
  }
  const type = essence.trim().toLowerCase();
  return type ? { essence: type, params } : undefined;
}

/** Types that say nothing about the bytes: the body is sniffed with no expectation. */
export const OPAQUE_TYPES = new Set([
  "application/octet-stream",
  "binary/octet-stream",
  "application/unknown",
]);

/** What a declared type promises, used to word errors when the bytes say otherwise. */
const DECLARED: Record<string, string> = {
  "audio/wav": "WAV",
  "audio/x-wav": "WAV",
  "audio/wave": "WAV",
  "audio/vnd.wave": "WAV",
  "audio/webm": "WebM",
  "video/webm": "WebM",
  "audio/x-matroska": "Matroska",
  "video/x-matroska": "Matroska",
  "audio/ogg": "Ogg",
  "audio/opus": "Ogg Opus",
  "application/ogg": "Ogg",
  "audio/mpeg": "MP3",
  "audio/mp3": "MP3",
  "audio/mpeg3": "MP3",
  "audio/aac": "AAC",
  "audio/aacp": "AAC",
  "audio/x-aac": "AAC",
  "audio/flac": "FLAC",
  "audio/x-flac": "FLAC",
  "audio/mp4": "MP4",
  "audio/m4a": "MP4",
  "audio/x-m4a": "MP4",
  "video/mp4": "MP4",
};

/** The format a known audio type declares, e.g. "WebM" for `audio/webm`. */
export const declaredFormat = (media: MediaType | undefined) => (media ? DECLARED[media.essence] : undefined);
