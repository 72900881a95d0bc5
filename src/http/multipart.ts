// multipart/form-data bodies (RFC 7578), read from the buffered body without copying it: each part
// is a view into the body, found with Buffer.indexOf (native), and a text field is decoded only
// when asked for. Bun's formData() copied a large body twice and parsed it in one step that held
// the event loop (a 32 MiB field: 0.75 s). It also gave every file an empty type, so a raw PCM
// upload (`audio/L16;rate=16000`) would lose the only thing that says how to read its samples.
import { parseMediaType } from "../dictation/audio/index.ts";
import { AppError } from "../errors.ts";

const CRLF = Buffer.from("\r\n");
const HEADERS_END = Buffer.from("\r\n\r\n");
const DASHES = Buffer.from("--");
const utf8 = new TextDecoder();

/** One part: its field name, its file name when it is a file, its own Content-Type, its bytes. */
interface Part {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  bytes: Uint8Array;
}

/** An uploaded file: its bytes and the type its part declared. */
export interface UploadedFile {
  audio: Uint8Array;
  contentType: string | undefined;
  /** The part's file name, as the client sent it (`filename=`). */
  filename?: string;
}

/** A multipart/form-data body, read: its text fields (as FormData answers them) and its files. */
export interface MultipartBody {
  /** The first text field named `name`; for a file part, its file. */
  get(name: string): string | UploadedFile | null;
  getAll(name: string): (string | UploadedFile)[];
  /** The first file part named `name`, typed by its part's own Content-Type (parameters included). */
  file(name: string): UploadedFile | undefined;
}

const malformed = (why: string) =>
  new AppError("invalid_multipart", `The multipart body could not be read: ${why}.`);

/** A header parameter (`name="audio"`, `filename=a.wav`) of a part's Content-Disposition. */
function parameter(disposition: string, key: string): string | undefined {
  const match = new RegExp(`;\\s*${key}\\s*=\\s*(?:"([^"]*)"|([^;\\s]*))`, "i").exec(disposition);
  return match ? (match[1] ?? match[2]) : undefined;
}

function headerOf(head: string, name: string): string | undefined {
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}

function readPart(bytes: Buffer, start: number, end: number): Part {
  const headersEnd = bytes.indexOf(HEADERS_END, start);
  // A part with no headers at all begins with the blank line itself.
  const [headEnd, bodyStart] =
    bytes.indexOf(CRLF, start) === start ? [start, start + 2] : [headersEnd, headersEnd + 4];
  if (headEnd < 0 || bodyStart > end) throw malformed("a part's headers do not end");
  const head = bytes.toString("latin1", start, headEnd);
  const disposition = headerOf(head, "content-disposition");
  const name = disposition ? parameter(disposition, "name") : undefined;
  if (!disposition || name === undefined) throw malformed("a part has no Content-Disposition name");
  return {
    // Field and file names are UTF-8, written as they are (RFC 7578 §5.1).
    name: Buffer.from(name, "latin1").toString("utf8"),
    filename: parameter(disposition, "filename"),
    contentType: headerOf(head, "content-type") || undefined,
    bytes: bytes.subarray(bodyStart, end),
  };
}

/** The parts between the delimiters of `boundary`. */
function splitParts(body: Uint8Array, boundary: string): Part[] {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  let at = bytes.indexOf(delimiter);
  if (at < 0) throw malformed("the boundary does not occur in the body");
  const parts: Part[] = [];
  for (;;) {
    at += delimiter.length;
    if (bytes.indexOf(DASHES, at) === at) return parts;
    // Transport padding may follow a delimiter; then the line ends.
    const lineEnd = bytes.indexOf(CRLF, at);
    if (lineEnd < 0 || bytes.toString("latin1", at, lineEnd).trim() !== "")
      throw malformed("a delimiter line is not followed by a line break");
    const end = bytes.indexOf(next, lineEnd + 2);
    if (end < 0) throw malformed("the closing delimiter is missing");
    parts.push(readPart(bytes, lineEnd + 2, end));
    at = end + 2;
  }
}

/**
 * The file's bytes where a Float64Array may view them: audio decoders read samples in place, which
 * needs their offset in the buffer to be a multiple of the sample size. Copied only when it is not.
 */
const aligned = (bytes: Uint8Array): Uint8Array =>
  // A plain Uint8Array copy: a Buffer's slice() would be another view.
  bytes.byteOffset % 8 === 0
    ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : new Uint8Array(bytes);

/** Reads a buffered multipart/form-data body; 400 `invalid_multipart` when it does not parse. */
export function readMultipart(body: Uint8Array, contentType: string): MultipartBody {
  const boundary = parseMediaType(contentType)?.params.boundary;
  if (!boundary) throw malformed("Content-Type names no boundary");
  const parts = splitParts(body, boundary);
  const texts = new Map<Part, string>();
  const entry = (part: Part): string | UploadedFile => {
    if (part.filename !== undefined) return { audio: aligned(part.bytes), contentType: part.contentType };
    let text = texts.get(part);
    if (text === undefined) {
      text = utf8.decode(part.bytes);
      texts.set(part, text);
    }
    return text;
  };
  const named = (name: string) => parts.filter((part) => part.name === name);
  return {
    get(name) {
      const part = named(name)[0];
      return part ? entry(part) : null;
    },
    getAll: (name) => named(name).map(entry),
    file(name) {
      const part = named(name).find((candidate) => candidate.filename !== undefined);
      if (!part) return undefined;
      return { audio: aligned(part.bytes), contentType: part.contentType, filename: part.filename };
    },
  };
}
