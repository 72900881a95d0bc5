// A client that behaves as the Freestyle desktop app's renderer does against its server (written
// for svc's tests from the app's documented behaviour, not taken from it): the socket to
// /stream opened before the hotkey and kept across recordings, `config` awaited before anything is
// sent, the app context told, `start`, 80 ms frames of 16 kHz PCM16 while the key is held,
// `commit` on release, and the `final` text pasted; with no final in time, the recording is
// uploaded to POST /api/transcribe as WAV and `cleaned` is pasted. Every request carries the
// renderer's Origin, app://renderer.
import * as v from "valibot";
import { streamServerMessageSchema } from "../../src/desktop/stream-protocol.ts";
import { encodeWav } from "../../src/dictation/audio/index.ts";

export const rendererOrigin = "app://renderer";
/** 80 ms of 16 kHz mono PCM16, the app's frame. */
export const frameBytes = 2560;
/** The app falls back to the upload this long after release without a final. */
const finalTimeoutMs = 15_000;

export type StreamMessage = Record<string, unknown> & { type: string };

export interface DesktopSocket {
  ws: WebSocket;
  messages: StreamMessage[];
  /** The next message of `type` not yet taken (in arrival order). */
  next(type: string, timeoutMs?: number): Promise<StreamMessage>;
  json(message: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens `<base>/stream[?token=]` as the app does; resolves once open (not waiting for config). */
export async function openStream(
  base: string,
  options: { token?: string; origin?: string } = {},
): Promise<DesktopSocket> {
  const url = `${base.replace(/^http/, "ws")}/stream${options.token ? `?token=${encodeURIComponent(options.token)}` : ""}`;
  const ws = new WebSocket(url, {
    headers: { origin: options.origin ?? rendererOrigin },
  } as unknown as string[]);
  ws.binaryType = "arraybuffer";
  const messages: StreamMessage[] = [];
  const taken = new Set<StreamMessage>();
  const waiters: (() => void)[] = [];
  let offProtocol: Error | undefined;
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as StreamMessage;
    const checked = v.safeParse(streamServerMessageSchema, message);
    if (!checked.success) offProtocol ??= new Error(`off-protocol message ${event.data}`);
    messages.push(message);
    for (const wake of waiters.splice(0)) wake();
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.onclose = (event) => {
      resolve({ code: event.code, reason: event.reason });
      for (const wake of waiters.splice(0)) wake();
    };
  });
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error("the socket did not open"));
  });
  return {
    ws,
    messages,
    closed,
    json: (message) => ws.send(JSON.stringify(message)),
    async next(type, timeoutMs = 20_000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        if (offProtocol) throw offProtocol;
        const found = messages.find((message) => message.type === type && !taken.has(message));
        if (found) {
          taken.add(found);
          return found;
        }
        if (ws.readyState === WebSocket.CLOSED) throw new Error(`the socket closed before ${type}`);
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`no ${type} within ${timeoutMs} ms: ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

/** 16-bit little-endian samples, as the app's worklet sends them. */
export function pcm16(pcm: Float32Array): Uint8Array<ArrayBuffer> {
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    const sample = Math.max(-1, Math.min(1, pcm[i] ?? 0));
    out[i] = sample < 0 ? sample * 0x8000 : sample * 0x7fff;
  }
  return new Uint8Array(out.buffer);
}

/** The app's health gate: it uses a server only when it answers name "freestyle". */
export async function healthGate(base: string): Promise<boolean> {
  const response = await fetch(`${base}/api/health`, { headers: { origin: rendererOrigin } });
  if (!response.ok) return false;
  const body = (await response.json()) as { status?: string; name?: string };
  return body.status === "ok" && body.name === "freestyle";
}

export interface Recorded {
  /** What the app pasted ("" for nothing). */
  pasted: string;
  /** How it got there. */
  via: "final" | "upload";
  /** Hotkey release (commit sent) to the final, or to the upload's answer. */
  releaseToTextMs: number;
  /** The messages of this recording, in order. */
  messages: StreamMessage[];
}

export interface DictateOptions {
  /** The frontmost app as the app describes it (JSON), told before start (0.8.x) or not at all. */
  context?: string | null;
  /** 0.7.x tells a null context first and the real one only after start (and in commit). */
  contextAfterStart?: boolean;
  /** Frames sent at real-time pace (the default), else all at once. */
  realTime?: boolean;
  /** Bearer key for HTTP (the upload fallback). */
  token?: string;
  /** Wait for session.ready before sending frames; the app does not (default false). */
  awaitReady?: boolean;
}

/** One hotkey press over an open socket: start, frames while held, commit on release, paste. */
export async function dictate(
  base: string,
  socket: DesktopSocket,
  audio: Uint8Array<ArrayBuffer>,
  options: DictateOptions = {},
): Promise<Recorded> {
  const from = socket.messages.length;
  const context = options.context ?? null;
  if (options.contextAfterStart) {
    socket.json({ type: "context", context: null });
    socket.json({ type: "start", context: null });
  } else {
    socket.json({ type: "context", context });
    socket.json({ type: "start", context });
  }
  if (options.awaitReady) await socket.next("session.ready");
  const realTime = options.realTime ?? true;
  const began = performance.now();
  for (let at = 0, sent = 0; at < audio.length; at += frameBytes, sent += 1) {
    socket.ws.send(audio.subarray(at, at + frameBytes));
    if (options.contextAfterStart && sent === 3) socket.json({ type: "context", context });
    if (realTime) {
      const due = began + (sent + 1) * 80;
      await Bun.sleep(Math.max(0, due - performance.now()));
    }
  }
  const audioDurationMs = Math.round((audio.length / 2 / 16_000) * 1000);
  const released = performance.now();
  socket.json({ type: "commit", audioDurationMs, context });
  try {
    const final = await socket.next("final", finalTimeoutMs);
    return {
      pasted: String(final.text).trim(),
      via: "final",
      releaseToTextMs: performance.now() - released,
      messages: socket.messages.slice(from),
    };
  } catch {
    const pasted = await upload(base, audio, { context, token: options.token });
    return {
      pasted,
      via: "upload",
      releaseToTextMs: performance.now() - released,
      messages: socket.messages.slice(from),
    };
  }
}

/** The app's upload fallback: the recording as WAV, the context percent-encoded; pastes `cleaned || raw`. */
export async function upload(
  base: string,
  audio: Uint8Array<ArrayBuffer>,
  options: { context?: string | null; token?: string } = {},
): Promise<string> {
  const headers: Record<string, string> = { "content-type": "audio/wav", origin: rendererOrigin };
  if (options.context) headers["x-app-context"] = encodeURIComponent(options.context);
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const samples = new Int16Array(audio.buffer, audio.byteOffset, audio.byteLength / 2);
  const pcm = Float32Array.from(samples, (sample) => sample / 32768);
  const response = await fetch(`${base}/api/transcribe`, { method: "POST", body: encodeWav(pcm), headers });
  const body = (await response.json()) as {
    cleaned?: string;
    raw?: string;
    error?: unknown;
    disposition?: string;
  };
  if (!response.ok) throw new Error(`upload failed: ${JSON.stringify(body.error)}`);
  if (body.disposition && body.disposition !== "deliver") return "";
  return (body.cleaned || body.raw || "").trim();
}
