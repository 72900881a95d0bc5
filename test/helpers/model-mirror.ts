// A real HTTP/1.1 model mirror on 127.0.0.1 for download tests. It is written on Bun.listen rather than
// Bun.serve because a test must control the wire: send Content-Length for the whole body, then drop the
// connection part-way (Bun.serve streams such bodies chunked and reports the drop as a server error).
import type { Socket, TCPSocketListener } from "bun";

export interface MirrorRequest {
  path: string;
  range: string | null;
  status: number;
  /** Body bytes written before the response ended or was cut. */
  sentBytes: number;
}

export interface ModelMirror {
  /** Base URL; files are served at `${url}/${name}`. */
  url: string;
  files: Map<string, Uint8Array>;
  requests: MirrorRequest[];
  /** Answer Range requests with the whole file (200), like a server without range support. */
  ignoreRange: boolean;
  /** Send the body in chunks of this size with a pause between them (a slow link). */
  pace: { chunkBytes: number; delayMs: number } | null;
  /** The next response sends `bytes` of its body, then the connection drops. */
  cutNextAfter(bytes: number): void;
  stop(): void;
}

interface Connection {
  head: string;
  handled: boolean;
  closed: boolean;
  drained: (() => void) | undefined;
}

type Client = Socket<Connection>;

async function send(socket: Client, bytes: Uint8Array): Promise<number> {
  let offset = 0;
  while (offset < bytes.length && !socket.data.closed) {
    const written = socket.write(bytes.subarray(offset));
    offset += Math.max(0, written);
    if (offset < bytes.length) await new Promise<void>((resolve) => (socket.data.drained = resolve));
  }
  return offset;
}

export function startModelMirror(files: Record<string, Uint8Array> = {}): ModelMirror {
  const cuts: number[] = [];
  const mirror: ModelMirror = {
    url: "",
    files: new Map(Object.entries(files)),
    requests: [],
    ignoreRange: false,
    pace: null,
    cutNextAfter: (bytes) => cuts.push(bytes),
    stop: () => listener.stop(true),
  };

  async function respond(socket: Client, path: string, range: string | null): Promise<void> {
    const file = mirror.files.get(decodeURIComponent(path.replace(/^\/models\//, "")));
    const record: MirrorRequest = { path, range, status: 404, sentBytes: 0 };
    mirror.requests.push(record);
    const head = (status: string, headers: Record<string, string | number>) =>
      `HTTP/1.1 ${status}\r\n${Object.entries({ ...headers, Connection: "close" })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}\r\n`;
    if (!file) {
      await send(socket, new TextEncoder().encode(head("404 Not Found", { "Content-Length": 0 })));
      socket.end();
      return;
    }
    const start = Number(/^bytes=(\d+)-$/.exec(range ?? "")?.[1] ?? 0);
    if (range && !mirror.ignoreRange && start >= file.length) {
      record.status = 416;
      const headers = { "Content-Range": `bytes */${file.length}`, "Content-Length": 0 };
      await send(socket, new TextEncoder().encode(head("416 Range Not Satisfiable", headers)));
      socket.end();
      return;
    }
    const partial = range !== null && !mirror.ignoreRange;
    const body = file.subarray(partial ? start : 0);
    record.status = partial ? 206 : 200;
    const headers: Record<string, string | number> = {
      "Content-Type": "application/octet-stream",
      "Content-Length": body.length,
      "Accept-Ranges": "bytes",
      ...(partial ? { "Content-Range": `bytes ${start}-${file.length - 1}/${file.length}` } : {}),
    };
    await send(socket, new TextEncoder().encode(head(partial ? "206 Partial Content" : "200 OK", headers)));
    const limit = Math.min(body.length, cuts.shift() ?? body.length);
    const step = mirror.pace?.chunkBytes ?? limit;
    for (let offset = 0; offset < limit && !socket.data.closed; offset += step) {
      record.sentBytes += await send(socket, body.subarray(offset, Math.min(limit, offset + step)));
      if (mirror.pace) await Bun.sleep(mirror.pace.delayMs);
    }
    socket.end();
  }

  const listener: TCPSocketListener<Connection> = Bun.listen<Connection>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { head: "", handled: false, closed: false, drained: undefined };
      },
      data(socket, chunk) {
        if (socket.data.handled) return;
        socket.data.head += new TextDecoder().decode(chunk);
        if (!socket.data.head.includes("\r\n\r\n")) return;
        socket.data.handled = true;
        const [requestLine = "", ...lines] = socket.data.head.split("\r\n");
        const path = requestLine.split(" ")[1] ?? "/";
        const rangeLine = lines.find((line) => line.toLowerCase().startsWith("range:"));
        void respond(socket, path, rangeLine ? rangeLine.slice(6).trim() : null);
      },
      drain(socket) {
        socket.data.drained?.();
      },
      close(socket) {
        socket.data.closed = true;
        socket.data.drained?.();
      },
    },
  });
  mirror.url = `http://127.0.0.1:${listener.port}/models`;
  return mirror;
}
