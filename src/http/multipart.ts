const HEADERS_END = Buffer.from("\r\n\r\n");
const FIELD_NAME = /^content-disposition:[^\r\n]*?;\s*name="([^"]*)"/im;
const CONTENT_TYPE = /^content-type:[ \t]*([^\r\n]*)/im;

/**
 * The `Content-Type` header of the first part named `field` in a multipart/form-data body, as
 * the client wrote it. Bun's `formData()` gives every file an empty type, so a raw PCM upload
 * (`audio/L16;rate=16000`) would lose the only thing that says how to read its samples.
 */
export function partContentType(body: Uint8Array, boundary: string, field: string): string | undefined {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary}`);
  let at = bytes.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    const end = bytes.indexOf(HEADERS_END, start);
    if (end < 0) return undefined;
    const head = bytes.toString("latin1", start, end);
    if (FIELD_NAME.exec(head)?.[1] === field) return CONTENT_TYPE.exec(head)?.[1]?.trim() || undefined;
    at = bytes.indexOf(delimiter, end + HEADERS_END.length);
  }
  return undefined;
}
