import { parseMediaType } from "../dictation/audio/media-type.ts";
import { AppError } from "../errors.ts";

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

/** A multipart/form-data body, read whole: its fields, its bytes and its boundary. */
export interface MultipartBody {
  form: FormData;
  bytes: Uint8Array;
  boundary: string | undefined;
}

/** Reads a multipart/form-data request (chunked or not); 400 `invalid_multipart` when it does not parse. */
export async function readMultipart(request: Request, contentType: string): Promise<MultipartBody> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  const form = await new Response(bytes, { headers: { "content-type": contentType } })
    .formData()
    .catch(() => {
      throw new AppError("invalid_multipart", "The multipart body could not be parsed.");
    });
  return { form, bytes, boundary: parseMediaType(contentType)?.params.boundary };
}

/** An uploaded file: its bytes and the type its part declared. */
export interface UploadedFile {
  audio: Uint8Array;
  contentType: string | undefined;
}

/** The file in `field`, typed by its part's own Content-Type (parameters included); none if absent. */
export async function fileField(body: MultipartBody, field: string): Promise<UploadedFile | undefined> {
  const file = body.form.get(field);
  if (!(file instanceof Blob)) return undefined;
  const partType =
    body.boundary === undefined ? undefined : partContentType(body.bytes, body.boundary, field);
  return {
    audio: new Uint8Array(await file.arrayBuffer()),
    contentType: partType ?? (file.type || undefined),
  };
}
